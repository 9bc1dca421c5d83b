#pragma once
// Stable places for a debugger to break: the registry calls registration_event() after every
// registration, and a traced dispatch calls dispatch_event() (scripts/gdb uses both). They do
// nothing; they are compiled without optimisation so their arguments can always be read.
#include "engine/core/dispatch_key_set.h"
#include "registry/function_schema.h"
#include "registry/operator_name.h"

namespace glassbox {
class KernelFunction;
namespace detail {

// kind: "def", "impl" or "fallback"; op and schema are null where they do not apply.
void registration_event(const char* kind, const OperatorName* op, DispatchKey key, const FunctionSchema* schema,
                        const KernelFunction* kernel, const char* where);
void dispatch_event(const OperatorName* op, DispatchKeySet keys, const KernelFunction* kernel);

}  // namespace detail
}  // namespace glassbox
