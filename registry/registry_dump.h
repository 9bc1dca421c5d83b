#pragma once
// Text and JSON views of the registry: what is registered, where, and what each dispatch-table
// slot resolves to and why.
#include <string>

#include "registry/dispatcher.h"

namespace glassbox {

// Schema, where it was defined, tags, and every kernel registered per key (replaced ones too).
std::string dump(const OperatorHandle& op);
// The computed table, one line per runtime key:
//   CPU: registered at engine/cpu/binary.cpp:42 [kernel]
std::string dump_table(const OperatorHandle& op);
// Every kernel registered for one key (alias keys included), and the key's fallback.
std::string dump_registrations(DispatchKey key);
// The whole registry: libraries, fallbacks, operators (schema, tags, kernels, computed table).
std::string registry_to_json(int indent = 2);
std::string operator_to_json(const OperatorHandle& op, int indent = 2);

}  // namespace glassbox
