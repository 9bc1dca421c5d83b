#pragma once
// Real binaries for the symbol tests, obtained by package name: libraries of installed Debian
// packages, and libtorch_cpu.so from the PyPI wheel of torch (downloaded with pip once, into a
// cache shared by the tests, and unpacked there).
#include <filesystem>
#include <string>

namespace glassbox::introspect::testing {

struct FetchedFile {
  std::filesystem::path path;  // empty when it could not be had
  std::string why_not;         // then: what failed
};

// The cache folder of downloads: $GLASSBOX_CACHE_DIR, else $XDG_CACHE_HOME/glassbox, else
// ~/.cache/glassbox.
std::filesystem::path download_cache();

// torch/lib/<library> from the torch wheel of PyPI (`pip download torch --no-deps`), fetched into
// <cache>/wheels and unpacked into <cache>/wheels/<wheel name>/ when not there yet.
FetchedFile torch_wheel_library(const std::string& library);

// The wheel's C++ headers (torch/include, unpacked once next to the libraries), or why not.
FetchedFile torch_wheel_include_dir();

// The installed file of a Debian package whose path ends with `suffix` (dpkg -L), or why not.
FetchedFile debian_package_file(const std::string& package, const std::string& suffix);

}  // namespace glassbox::introspect::testing
