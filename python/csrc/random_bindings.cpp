// The default random generator from Python: gb._C.manual_seed(s) makes every later rand, randn,
// randint, normal_, uniform_, bernoulli_ and dropout call reproducible.
#include <pybind11/pybind11.h>

#include "engine/core/generator.h"

namespace py = pybind11;

void bind_random(py::module_& m) {
  // Any Python int is accepted, as torch.manual_seed does: negative seeds wrap modulo 2^64.
  m.def(
      "manual_seed", [](const py::int_& seed) { glassbox::manual_seed(PyLong_AsUnsignedLongLongMask(seed.ptr())); },
      py::arg("seed"), "Seeds the default generator and restarts its stream.");
  m.def(
      "seed", [] { return glassbox::default_generator().seed(); },
      "Seeds the default generator from a non-deterministic source; returns the seed.");
  m.def(
      "initial_seed", [] { return glassbox::default_generator().initial_seed(); },
      "The seed the default generator was last seeded with.");
}
