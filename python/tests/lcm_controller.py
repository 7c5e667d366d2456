"""A controller written as a Python process (docs/signals.md): serves a
Python LeafSystem PD over LCM to an LcmLockstepSystem in another process.

    python3 lcm_controller.py URL STATE_CHANNEL COMMAND_CHANNEL N

Answers N requests, then exits 0 (1 if the requests stopped coming for
30 s first)."""
import sys

import tern


class Pd(tern.LeafSystem):
    """u = -kp x0 - kd x1: a function of the input only."""

    def __init__(self, kp, kd):
        super().__init__()
        self.kp, self.kd = kp, kd
        self.declare_vector_input_port("x", 2)
        self.declare_vector_output_port("u", 1, self.calc_u,
                                        tern.ticket.kInputs)

    def calc_u(self, context, u):
        x = self.get_input_port(0).eval(context)
        u[0] = -self.kp * x[0] - self.kd * x[1]


def main():
    url, state, command, n = sys.argv[1], sys.argv[2], sys.argv[3], \
        int(sys.argv[4])
    lcm = tern.LcmInterface(url)
    server = tern.LcmSystemServer(Pd(20.0, 3.0), lcm, state,
                                  tern.LcmVectorTranslator("sensor", 2),
                                  command,
                                  tern.LcmVectorTranslator("joint_command", 1))
    return 0 if server.serve(30.0, n) == n else 1


if __name__ == "__main__":
    sys.exit(main())
