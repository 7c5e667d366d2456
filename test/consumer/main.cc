// A program outside the Tern tree, built against the installed package.
#include <iostream>

#include "tern/common/value.h"

int main() {
  auto v = tern::AbstractValue::Make(42);
  if (v->get_value<int>() != 42) return 1;
  std::cout << "consumer linked tern::tern\n";
  return 0;
}
