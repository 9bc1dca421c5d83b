// Compiled instead of source_scan_libclang.cpp when libclang was not found at configure time.
#include "engine/core/error.h"
#include "introspect/source/source_scan.h"

namespace glassbox::introspect {

bool source_scan_available() { return false; }

SourceScan scan_sources(const CompileDatabase&, const SourceScanOptions&) {
  throw Error(
      "scanning sources needs libclang, and glassbox was built without it "
      "(install libclang-dev and re-run cmake)");
}

}  // namespace glassbox::introspect
