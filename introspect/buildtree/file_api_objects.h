#pragma once
// Readers of the individual File API reply objects (internal to the File API reader, exposed for tests).
#include <filesystem>
#include <string>
#include <vector>

#include "introspect/buildtree/file_api.h"

namespace glassbox::introspect {

CodeModel read_codemodel_object(const std::filesystem::path& file);
Target read_target_object(const std::filesystem::path& file);
std::vector<CacheEntry> read_cache_object(const std::filesystem::path& file);
std::vector<std::string> read_cmake_files_object(const std::filesystem::path& file);
std::vector<Toolchain> read_toolchains_object(const std::filesystem::path& file);

}  // namespace glassbox::introspect
