"""glassbox's operator code generator: engine/ops/ops.yaml -> C++ declarations and registrations."""
