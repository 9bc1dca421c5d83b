${banner}
#pragma once
// Every operator's C++ API: the functions (glassbox::add) and typed handles (glassbox::ops::add_Tensor).
// Including only glassbox/ops/<name>.h for the operators a file uses compiles faster.
${includes}
