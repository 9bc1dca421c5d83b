#include "introspect/registry/registration_inputs.h"

#include <filesystem>

#include "introspect/binary/binary_registrations.h"

namespace glassbox::introspect {

std::vector<std::string> engine_libraries(const FileApiReply& reply) {
  std::vector<std::string> out;
  const Configuration& config = reply.configuration();
  for (const char* name : {"glassbox_core", "glassbox_cpu", "glassbox_cuda"}) {
    const Target* t = config.find_target(name);
    if (!t || t->artifacts.empty()) continue;
    const std::filesystem::path lib = std::filesystem::path(reply.build_dir) / t->artifacts.front();
    if (std::filesystem::exists(lib)) out.push_back(lib.string());
  }
  return out;
}

void read_binary_side(const std::vector<std::string>& libraries, RegistrationInputs& inputs,
                      const std::vector<std::string>& kernels) {
  std::vector<BinaryRegistrationRecord> records;
  std::vector<BinaryLibraryRecord> read;
  for (const std::string& lib : libraries) {
    const BinaryRegistrationScan scan = scan_binary_registrations(lib, {}, kernels);
    for (const auto& f : scan.functions)
      inputs.kernel_definitions.push_back({f.name, f.symbol, f.size, f.file, int(f.line), f.library});
    auto found = binary_registration_records_from(scan.registrations);
    records.insert(records.end(), found.begin(), found.end());
    read.push_back(binary_library_record_from(scan));
  }
  inputs.binary = std::move(records);
  inputs.binary_libraries = std::move(read);
}

}  // namespace glassbox::introspect
