#include "real_binaries.h"

#include <cstdlib>
#include <sstream>

#include "introspect/support/process.h"

namespace glassbox::introspect::testing {
namespace fs = std::filesystem;

fs::path download_cache() {
  if (const char* d = std::getenv("GLASSBOX_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "glassbox";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".cache" / "glassbox";
}

namespace {

fs::path newest_torch_wheel(const fs::path& dir) {
  fs::path best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("torch-", 0) == 0 && e.path().extension() == ".whl" &&
        (best.empty() || name > best.filename().string()))
      best = e.path();
  }
  return best;
}

// The cached torch wheel (downloaded when missing), or why there is none.
FetchedFile torch_wheel() {
  const fs::path wheels = download_cache() / "wheels";
  std::error_code ec;
  fs::create_directories(wheels, ec);
  fs::path wheel = newest_torch_wheel(wheels);
  if (wheel.empty()) {
    const ProcessResult pip = run_process({GLASSBOX_TEST_PYTHON, "-m", "pip", "download", "torch", "--no-deps",
                                           "--only-binary=:all:", "-d", wheels.string()});
    wheel = newest_torch_wheel(wheels);
    if (pip.exit_code != 0 || wheel.empty()) {
      return {{},
              "pip download torch --no-deps failed (exit " + std::to_string(pip.exit_code) +
                  "): " + pip.error_output.substr(pip.error_output.size() > 600 ? pip.error_output.size() - 600 : 0)};
    }
  }
  return {wheel, ""};
}

}  // namespace

FetchedFile torch_wheel_include_dir() {
  const FetchedFile wheel = torch_wheel();
  if (wheel.path.empty()) return wheel;
  const fs::path unpacked = wheel.path.parent_path() / wheel.path.stem();
  const fs::path include = unpacked / "torch" / "include";
  if (fs::exists(include / "torch" / "library.h")) return {include, ""};
  const std::string script =
      "import sys, zipfile\n"
      "z = zipfile.ZipFile(sys.argv[1])\n"
      "z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith('torch/include/')])\n";
  const ProcessResult unzip = run_process({GLASSBOX_TEST_PYTHON, "-c", script, wheel.path.string(), unpacked.string()});
  if (unzip.exit_code != 0 || !fs::exists(include / "torch" / "library.h"))
    return {{}, "cannot unpack torch/include from " + wheel.path.string() + ": " + unzip.error_output};
  return {include, ""};
}

FetchedFile torch_wheel_library(const std::string& library) {
  const FetchedFile got = torch_wheel();
  if (got.path.empty()) return got;
  const fs::path wheel = got.path;
  const fs::path unpacked = wheel.parent_path() / wheel.stem();
  const fs::path file = unpacked / "torch" / "lib" / library;
  if (fs::exists(file)) return {file, ""};
  // Only the member asked for: the wheel holds gigabytes of other libraries and headers.
  std::ostringstream script;
  script << "import sys, zipfile\n"
         << "zipfile.ZipFile(sys.argv[1]).extract('torch/lib/' + sys.argv[3], sys.argv[2])\n";
  const ProcessResult unzip =
      run_process({GLASSBOX_TEST_PYTHON, "-c", script.str(), wheel.string(), unpacked.string(), library});
  if (unzip.exit_code != 0 || !fs::exists(file))
    return {{}, "cannot unpack torch/lib/" + library + " from " + wheel.string() + ": " + unzip.error_output};
  return {file, ""};
}

FetchedFile debian_package_file(const std::string& package, const std::string& suffix) {
  const ProcessResult dpkg = run_process({"dpkg", "-L", package});
  if (dpkg.exit_code != 0)
    return {{}, "Debian package " + package + " is not installed (apt-get install " + package + ")"};
  std::istringstream lines(dpkg.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() >= suffix.size() && line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        fs::is_regular_file(line) && !fs::is_symlink(line))
      return {line, ""};
  }
  return {{}, "Debian package " + package + " has no file ending in " + suffix};
}

}  // namespace glassbox::introspect::testing
