"""Seed 000 from Python: x[n+1] = x[n] + 1, y[n] = 10 x[n], period 0.02,
publishing y at the same period; advanced to t = 0.06 from x0 = 0 it
publishes 0 10 20 30 (docs/semantics.md)."""
import tern


class Counter(tern.LeafSystem):
    def __init__(self):
        super().__init__()
        self.declare_discrete_state(1)
        self.declare_periodic_discrete_update_event(0.02, 0.0, self.update)
        # y depends on the discrete state only (no direct feedthrough).
        self.declare_vector_output_port("y", 1, self.calc_y, tern.ticket.kXd)
        self.declare_periodic_publish_event(0.02, 0.0, self.publish)

    def update(self, context, xd):
        xd.get_mutable_vector(0)[0] = context.get_discrete_state_vector()[0] + 1

    def calc_y(self, context, y):
        y[0] = 10 * context.get_discrete_state_vector()[0]

    def publish(self, context):
        y = self.get_output_port(0).eval(context)[0]
        print(f"t = {context.get_time():.2f}  y = {y:g}")


if __name__ == "__main__":
    simulator = tern.Simulator(Counter())
    simulator.advance_to(0.06)
