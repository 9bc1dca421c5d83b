#pragma once
// QuietDispatchTrace: while one lives, its thread's dispatch trace is not printed to stderr (even
// with GLASSBOX_DISPATCH_TRACE=1); captures still see every event. For a capture that wants the
// events only, such as Python's gb.trace(). Per thread, nestable.
namespace glassbox {

class QuietDispatchTrace {
 public:
  QuietDispatchTrace();
  ~QuietDispatchTrace();
  QuietDispatchTrace(const QuietDispatchTrace&) = delete;
  QuietDispatchTrace& operator=(const QuietDispatchTrace&) = delete;
};

}  // namespace glassbox
