#!/usr/bin/env python3
"""Writes the URDF models shipped with Tern (run from this folder).

Every model uses primitive shapes only, so any URDF reader (MuJoCo's too)
loads it without mesh files. Inertias are those of the solid primitives.
"""


def cyl_inertia(m, r, l):
    """Solid cylinder along z about its center."""
    ixx = m * (3 * r * r + l * l) / 12
    return ixx, ixx, m * r * r / 2


def box_inertia(m, x, y, z):
    return m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12


def sphere_inertia(m, r):
    i = 2 * m * r * r / 5
    return i, i, i


# Contact coefficients (mu, kp N/m, kd N·s/m) of the parts meant to touch the
# ground or objects: rubber soles and finger pads. Other collision geometry
# uses Tern's defaults (docs/geometry.md).
FOOT_CONTACT = (0.9, 2e5, 500)
HAND_CONTACT = (0.8, 1e5, 200)


def fmt(v):
    return " ".join(f"{x:.6g}" for x in v)


class Urdf:
    def __init__(self, name):
        self.name = name
        self.parts = []

    def material(self, name, rgba):
        self.parts.append(f'  <material name="{name}"><color rgba="{fmt(rgba)}"/></material>')

    def link(self, name, mass=None, com=(0, 0, 0), inertia=None, shapes=(), material=None,
             contact=None):
        """contact: (mu, kp, kd) written as <contact_coefficients> in each <collision>."""
        s = [f'  <link name="{name}">']
        if mass is not None:
            ixx, iyy, izz = inertia
            s.append("    <inertial>")
            s.append(f'      <origin xyz="{fmt(com)}" rpy="0 0 0"/>')
            s.append(f'      <mass value="{mass:.6g}"/>')
            s.append(f'      <inertia ixx="{ixx:.12g}" ixy="0" ixz="0" iyy="{iyy:.12g}" iyz="0" izz="{izz:.12g}"/>')
            s.append("    </inertial>")
        for kind, geom, xyz, rpy in shapes:
            for tag in ("visual", "collision"):
                s.append(f"    <{tag}>")
                s.append(f'      <origin xyz="{fmt(xyz)}" rpy="{fmt(rpy)}"/>')
                s.append(f"      <geometry>{geom}</geometry>")
                if tag == "visual" and material:
                    s.append(f'      <material name="{material}"/>')
                if tag == "collision" and contact:
                    mu, kp, kd = contact
                    s.append(f'      <contact_coefficients mu="{mu:.6g}" kp="{kp:.6g}" kd="{kd:.6g}"/>')
                s.append(f"    </{tag}>")
        s.append("  </link>")
        self.parts.append("\n".join(s))

    def joint(self, name, jtype, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=(0, 0, 1),
              limit=None, damping=None, friction=None):
        s = [f'  <joint name="{name}" type="{jtype}">']
        s.append(f'    <origin xyz="{fmt(xyz)}" rpy="{fmt(rpy)}"/>')
        s.append(f'    <parent link="{parent}"/>')
        s.append(f'    <child link="{child}"/>')
        if jtype != "fixed":
            s.append(f'    <axis xyz="{fmt(axis)}"/>')
        if limit is not None:
            lo, hi, effort, vel = limit
            s.append(f'    <limit lower="{lo:.6g}" upper="{hi:.6g}" effort="{effort:.6g}" velocity="{vel:.6g}"/>')
        if damping is not None or friction is not None:
            s.append(f'    <dynamics damping="{damping or 0:.6g}" friction="{friction or 0:.6g}"/>')
        s.append("  </joint>")
        self.parts.append("\n".join(s))

    def write(self, path, comment):
        with open(path, "w") as f:
            f.write('<?xml version="1.0"?>\n')
            f.write(f"<!-- {comment} Written for Tern (models/make_models.py). -->\n")
            f.write(f'<robot name="{self.name}">\n')
            f.write("\n".join(self.parts))
            f.write("\n</robot>\n")


def rod_link(u, name, m, r, l, material, direction=(0, 0, -1), extra_shapes=()):
    """A cylinder of length l from the link origin along `direction` (+-z)."""
    sign = direction[2]
    com = (0, 0, sign * l / 2)
    u.link(name, m, com, cyl_inertia(m, r, l),
           [("cyl", f'<cylinder radius="{r}" length="{l}"/>', com, (0, 0, 0))] + list(extra_shapes),
           material)


def pendulum():
    u = Urdf("pendulum")
    u.material("steel", (0.6, 0.6, 0.65, 1))
    u.link("base")
    rod_link(u, "arm", 1.0, 0.02, 1.0, "steel")
    u.joint("pivot", "continuous", "base", "arm", axis=(0, 1, 0), damping=0.05)
    u.write("pendulum.urdf", "Single pendulum: a 1 kg, 1 m rod hinged about y.")


def acrobot():
    u = Urdf("acrobot")
    u.material("blue", (0.2, 0.3, 0.8, 1))
    u.link("base")
    rod_link(u, "upper_link", 1.0, 0.03, 1.0, "blue")
    rod_link(u, "lower_link", 1.0, 0.03, 2.0, "blue")
    u.joint("shoulder", "continuous", "base", "upper_link", axis=(0, 1, 0), damping=0.1)
    u.joint("elbow", "continuous", "upper_link", "lower_link", xyz=(0, 0, -1.0), axis=(0, 1, 0),
            damping=0.1)
    u.write("acrobot.urdf", "Double pendulum (acrobot of Spong): two rods hinged about y.")


def cart_pole():
    u = Urdf("cart_pole")
    u.material("gray", (0.5, 0.5, 0.5, 1))
    u.material("red", (0.8, 0.2, 0.2, 1))
    u.link("rail", shapes=[("box", '<box size="4 0.05 0.05"/>', (0, 0, 0), (0, 0, 0))], material="gray")
    u.link("cart", 1.0, (0, 0, 0), box_inertia(1.0, 0.3, 0.2, 0.15),
           [("box", '<box size="0.3 0.2 0.15"/>', (0, 0, 0), (0, 0, 0))], "gray")
    rod_link(u, "pole", 0.1, 0.01, 1.0, "red", direction=(0, 0, 1))
    u.joint("slider", "prismatic", "rail", "cart", axis=(1, 0, 0), limit=(-2, 2, 100, 10),
            damping=0.0)
    u.joint("hinge", "continuous", "cart", "pole", axis=(0, 1, 0))
    u.write("cart_pole.urdf", "Cart-pole: a 1 kg cart on a rail and a 0.1 kg, 1 m pole.")


def arm7():
    u = Urdf("arm7")
    u.material("orange", (1.0, 0.5, 0.1, 1))
    u.material("gray", (0.4, 0.4, 0.4, 1))
    u.link("base", 5.0, (0, 0, 0.05), cyl_inertia(5.0, 0.1, 0.1),
           [("cyl", '<cylinder radius="0.1" length="0.1"/>', (0, 0, 0.05), (0, 0, 0))], "gray")
    # (name, mass, radius, length, joint axis, joint offset from parent)
    links = [("link1", 4.0, 0.07, 0.26, (0, 0, 1), (0, 0, 0.10)),
             ("link2", 4.0, 0.07, 0.16, (0, 1, 0), (0, 0, 0.26)),
             ("link3", 3.0, 0.06, 0.26, (0, 0, 1), (0, 0, 0.16)),
             ("link4", 2.7, 0.06, 0.16, (0, 1, 0), (0, 0, 0.26)),
             ("link5", 1.7, 0.05, 0.24, (0, 0, 1), (0, 0, 0.16)),
             ("link6", 1.8, 0.05, 0.10, (0, 1, 0), (0, 0, 0.24)),
             ("link7", 0.3, 0.04, 0.06, (0, 0, 1), (0, 0, 0.10))]
    limits = [2.9, 2.0, 2.9, 2.0, 2.9, 2.0, 3.0]
    efforts = [176, 176, 110, 110, 110, 40, 40]
    parent = "base"
    for i, (name, m, r, l, axis, offset) in enumerate(links):
        # Slightly off-axis coms make the inertia matrix fully coupled.
        com = (0.01 * ((i % 3) - 1), 0.008 * ((i % 2) * 2 - 1), l / 2)
        ixx, iyy, izz = cyl_inertia(m, r, l)
        u.link(name, m, com, (ixx, iyy * 1.05, izz),
               [("cyl", f'<cylinder radius="{r}" length="{l}"/>', (0, 0, l / 2), (0, 0, 0))],
               "orange" if i % 2 == 0 else "gray")
        u.joint(f"joint{i + 1}", "revolute", parent, name, xyz=offset, axis=axis,
                limit=(-limits[i], limits[i], efforts[i], 2.0), damping=0.5, friction=0.1)
        parent = name
    u.link("tool", 0.2, (0, 0, 0.03), sphere_inertia(0.2, 0.03),
           [("sph", '<sphere radius="0.03"/>', (0, 0, 0.03), (0, 0, 0))], "gray")
    u.joint("tool_mount", "fixed", "link7", "tool", xyz=(0, 0, 0.06))
    u.write("arm7.urdf", "A 7-DoF arm with the proportions of a collaborative robot.")


def quadruped():
    u = Urdf("quadruped")
    u.material("dark", (0.2, 0.2, 0.2, 1))
    u.material("yellow", (0.9, 0.8, 0.1, 1))
    u.link("base", 12.0, (0, 0, 0), box_inertia(12.0, 0.6, 0.3, 0.15),
           [("box", '<box size="0.6 0.3 0.15"/>', (0, 0, 0), (0, 0, 0))], "yellow")
    for name, x, y in (("fl", 0.25, 0.15), ("fr", 0.25, -0.15), ("hl", -0.25, 0.15),
                       ("hr", -0.25, -0.15)):
        u.link(f"{name}_hip", 1.0, (0, 0.04 if y > 0 else -0.04, 0), cyl_inertia(1.0, 0.04, 0.08),
               [("cyl", '<cylinder radius="0.04" length="0.08"/>', (0, 0, 0), (1.5708, 0, 0))], "dark")
        rod_link(u, f"{name}_thigh", 1.0, 0.03, 0.25, "dark")
        rod_link(u, f"{name}_calf", 0.3, 0.015, 0.25, "dark")
        u.link(f"{name}_foot", 0.05, (0, 0, 0), sphere_inertia(0.05, 0.02),
               [("sph", '<sphere radius="0.02"/>', (0, 0, 0), (0, 0, 0))], "dark",
               contact=FOOT_CONTACT)
        u.joint(f"{name}_hip_abduction", "revolute", "base", f"{name}_hip", xyz=(x, y, 0),
                axis=(1, 0, 0), limit=(-0.8, 0.8, 30, 20), damping=0.05)
        u.joint(f"{name}_hip_flexion", "revolute", f"{name}_hip", f"{name}_thigh",
                xyz=(0, 0.08 if y > 0 else -0.08, 0), axis=(0, 1, 0), limit=(-2.5, 2.5, 30, 20),
                damping=0.05)
        u.joint(f"{name}_knee", "revolute", f"{name}_thigh", f"{name}_calf", xyz=(0, 0, -0.25),
                axis=(0, 1, 0), limit=(-2.7, -0.1, 45, 20), damping=0.05)
        u.joint(f"{name}_foot_fixed", "fixed", f"{name}_calf", f"{name}_foot", xyz=(0, 0, -0.25))
    u.write("quadruped.urdf",
            "A quadruped with 12 actuated joints; load with floating_base = true.")


def humanoid():
    u = Urdf("humanoid")
    u.material("white", (0.9, 0.9, 0.9, 1))
    u.material("dark", (0.25, 0.25, 0.3, 1))
    u.link("pelvis", 8.0, (0, 0, 0), box_inertia(8.0, 0.2, 0.3, 0.15),
           [("box", '<box size="0.2 0.3 0.15"/>', (0, 0, 0), (0, 0, 0))], "white")

    def small(name, m=0.5):
        u.link(name, m, (0.005, 0.004, 0.003), sphere_inertia(m, 0.04),
               [("sph", '<sphere radius="0.04"/>', (0, 0, 0), (0, 0, 0))], "dark")

    # Waist: yaw, pitch, roll to the torso.
    small("waist_yaw_link", 1.0)
    small("waist_pitch_link", 1.0)
    u.link("torso", 20.0, (0, 0, 0.2), box_inertia(20.0, 0.25, 0.35, 0.4),
           [("box", '<box size="0.25 0.35 0.4"/>', (0, 0, 0.2), (0, 0, 0))], "white")
    u.joint("waist_yaw", "revolute", "pelvis", "waist_yaw_link", xyz=(0, 0, 0.1), axis=(0, 0, 1),
            limit=(-1, 1, 100, 5), damping=0.5)
    u.joint("waist_pitch", "revolute", "waist_yaw_link", "waist_pitch_link", axis=(0, 1, 0),
            limit=(-0.5, 1.2, 200, 5), damping=0.5)
    u.joint("waist_roll", "revolute", "waist_pitch_link", "torso", axis=(1, 0, 0),
            limit=(-0.5, 0.5, 200, 5), damping=0.5)
    # Neck: yaw, pitch to the head.
    small("neck_yaw_link", 0.3)
    u.link("head", 3.0, (0, 0, 0.1), sphere_inertia(3.0, 0.11),
           [("sph", '<sphere radius="0.11"/>', (0, 0, 0.1), (0, 0, 0))], "white")
    u.joint("neck_yaw", "revolute", "torso", "neck_yaw_link", xyz=(0, 0, 0.42), axis=(0, 0, 1),
            limit=(-1.2, 1.2, 10, 5), damping=0.1)
    u.joint("neck_pitch", "revolute", "neck_yaw_link", "head", axis=(0, 1, 0),
            limit=(-0.6, 0.8, 10, 5), damping=0.1)
    for side, s in (("l", 1), ("r", -1)):
        # Arm: shoulder pitch, roll, yaw; elbow; wrist yaw, pitch.
        small(f"{side}_shoulder_pitch_link", 1.0)
        small(f"{side}_shoulder_roll_link", 1.0)
        rod_link(u, f"{side}_upper_arm", 2.5, 0.045, 0.28, "white")
        rod_link(u, f"{side}_forearm", 1.5, 0.04, 0.25, "white")
        small(f"{side}_wrist_yaw_link", 0.3)
        u.link(f"{side}_hand", 0.5, (0, 0, -0.05), box_inertia(0.5, 0.08, 0.03, 0.1),
               [("box", '<box size="0.08 0.03 0.1"/>', (0, 0, -0.05), (0, 0, 0))], "dark",
               contact=HAND_CONTACT)
        u.joint(f"{side}_shoulder_pitch", "revolute", "torso", f"{side}_shoulder_pitch_link",
                xyz=(0, s * 0.22, 0.35), axis=(0, 1, 0), limit=(-3, 1.5, 80, 5), damping=0.3)
        u.joint(f"{side}_shoulder_roll", "revolute", f"{side}_shoulder_pitch_link",
                f"{side}_shoulder_roll_link", axis=(1, 0, 0), limit=(-1.5, 1.5, 80, 5), damping=0.3)
        u.joint(f"{side}_shoulder_yaw", "revolute", f"{side}_shoulder_roll_link",
                f"{side}_upper_arm", axis=(0, 0, 1), limit=(-2, 2, 50, 5), damping=0.3)
        u.joint(f"{side}_elbow", "revolute", f"{side}_upper_arm", f"{side}_forearm",
                xyz=(0, 0, -0.28), axis=(0, 1, 0), limit=(-2.5, 0, 50, 5), damping=0.3)
        u.joint(f"{side}_wrist_yaw", "revolute", f"{side}_forearm", f"{side}_wrist_yaw_link",
                xyz=(0, 0, -0.25), axis=(0, 0, 1), limit=(-2, 2, 10, 5), damping=0.1)
        u.joint(f"{side}_wrist_pitch", "revolute", f"{side}_wrist_yaw_link", f"{side}_hand",
                axis=(0, 1, 0), limit=(-1, 1, 10, 5), damping=0.1)
        # Leg: hip yaw, roll, pitch; knee; ankle pitch, roll.
        small(f"{side}_hip_yaw_link", 1.0)
        small(f"{side}_hip_roll_link", 1.0)
        rod_link(u, f"{side}_thigh", 7.0, 0.07, 0.4, "white")
        rod_link(u, f"{side}_shin", 4.0, 0.05, 0.4, "white")
        small(f"{side}_ankle_pitch_link", 0.5)
        u.link(f"{side}_foot", 1.2, (0.03, 0, -0.04), box_inertia(1.2, 0.22, 0.1, 0.05),
               [("box", '<box size="0.22 0.1 0.05"/>', (0.03, 0, -0.04), (0, 0, 0))], "dark",
               contact=FOOT_CONTACT)
        u.joint(f"{side}_hip_yaw", "revolute", "pelvis", f"{side}_hip_yaw_link",
                xyz=(0, s * 0.1, -0.08), axis=(0, 0, 1), limit=(-0.8, 0.8, 150, 6), damping=0.5)
        u.joint(f"{side}_hip_roll", "revolute", f"{side}_hip_yaw_link", f"{side}_hip_roll_link",
                axis=(1, 0, 0), limit=(-0.6, 0.6, 150, 6), damping=0.5)
        u.joint(f"{side}_hip_pitch", "revolute", f"{side}_hip_roll_link", f"{side}_thigh",
                axis=(0, 1, 0), limit=(-2.0, 0.8, 200, 6), damping=0.5)
        u.joint(f"{side}_knee", "revolute", f"{side}_thigh", f"{side}_shin", xyz=(0, 0, -0.4),
                axis=(0, 1, 0), limit=(0, 2.5, 200, 6), damping=0.5)
        u.joint(f"{side}_ankle_pitch", "revolute", f"{side}_shin", f"{side}_ankle_pitch_link",
                xyz=(0, 0, -0.4), axis=(0, 1, 0), limit=(-1, 1, 100, 6), damping=0.3)
        u.joint(f"{side}_ankle_roll", "revolute", f"{side}_ankle_pitch_link", f"{side}_foot",
                axis=(1, 0, 0), limit=(-0.5, 0.5, 100, 6), damping=0.3)
    u.write("humanoid.urdf",
            "A humanoid with 29 actuated joints; load with floating_base = true.")


if __name__ == "__main__":
    pendulum()
    acrobot()
    cart_pole()
    arm7()
    quadruped()
    humanoid()
