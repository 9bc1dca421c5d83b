// The profiler's CUDA activity through CUPTI's activity API: every kernel, memcpy and memset with
// its device start and end, recorded by the driver (no event is wrapped around a launch). The
// operator open on the launching thread pushes its event id as an external correlation id, so
// each activity record names the operator that launched it.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cxxabi.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/profiler/profiler.h"

namespace glassbox::cuda {

namespace {

constexpr size_t kBufferBytes = 8 << 20;
// External correlation records come with the API calls that launch work, so the runtime and
// driver API kinds are on too (their records are read past).
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,    CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t CUPTIAPI steady_timestamp() { return static_cast<uint64_t>(steady_ns()); }

std::string demangled(const char* name) {
  if (!name) return "?";
  int status = 0;
  char* text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && text ? text : name;
  std::free(text);
  return out;
}

const char* copy_kind(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "other";
  }
}

struct Activity {
  profiler::Event event;
  uint32_t correlation = 0;  // CUPTI's, joined to our operator ids through external correlation records
};

// A memcpy or memset record (their fields that matter here have the same names).
template <class Record>
Activity memory_activity(const Record& m, profiler::Event::Kind kind, std::string name) {
  Activity a;
  a.event.kind = kind;
  a.event.name = std::move(name);
  a.event.start_ns = static_cast<int64_t>(m.start);
  a.event.end_ns = static_cast<int64_t>(m.end);
  a.event.device_index = static_cast<int>(m.deviceId);
  a.event.detail = std::to_string(m.bytes) + " bytes, stream " + std::to_string(m.streamId);
  a.correlation = m.correlationId;
  return a;
}

class CuptiSource final : public profiler::GpuActivitySource {
 public:
  std::string unavailable_reason() override {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return "no CUDA device is visible";
    return {};
  }

  void start() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      activities_.clear();
      operator_of_.clear();
    }
    check(cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed), "cuptiActivityRegisterCallbacks");
    // Records on the profiler's own clock. Set before the kinds are enabled, and every time:
    // another CUPTI client in the process (torch.profiler) may have put its clock in place, and
    // CUPTI maps GPU times onto whichever clock is registered.
    if (cuptiActivityRegisterTimestampCallback(&steady_timestamp) == CUPTI_SUCCESS) {
      offset_ = 0;
    } else {
      uint64_t cupti_now = 0;
      cuptiGetTimestamp(&cupti_now);
      offset_ = steady_ns() - static_cast<int64_t>(cupti_now);
    }
    for (CUpti_ActivityKind kind : kKinds) check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  }

  void push_operator(uint64_t id) override {
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
  }
  void pop_operator() override {
    uint64_t last = 0;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
  }

  std::vector<profiler::Event> stop() override {
    cudaDeviceSynchronize();  // what was launched has run, so its records exist
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<profiler::Event> out;
    out.reserve(activities_.size());
    for (Activity& a : activities_) {
      auto it = operator_of_.find(a.correlation);
      a.event.parent = it == operator_of_.end() ? 0 : it->second;
      a.event.start_ns += offset_;
      a.event.end_ns += offset_;
      out.push_back(std::move(a.event));
    }
    activities_.clear();
    return out;
  }

  static CuptiSource& instance() {
    static CuptiSource* source = new CuptiSource();  // never destroyed: CUPTI may call back at exit
    return *source;
  }

 private:
  static void check(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return;
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    throw std::runtime_error(std::string("profiler: ") + what + " failed: " + (text ? text : "unknown CUPTI error"));
  }

  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = kBufferBytes;
    *max_records = 0;
  }

  static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    instance().read(buffer, valid);
    std::free(buffer);
  }

  void read(uint8_t* buffer, size_t valid) {
    std::lock_guard<std::mutex> lock(mutex_);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      Activity a;
      profiler::Event& e = a.event;
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
          auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
          e.kind = profiler::Event::Kind::GpuKernel;
          e.name = demangled(k->name);
          e.start_ns = static_cast<int64_t>(k->start);
          e.end_ns = static_cast<int64_t>(k->end);
          e.device_index = static_cast<int>(k->deviceId);
          e.detail = "grid [" + std::to_string(k->gridX) + ", " + std::to_string(k->gridY) + ", " +
                     std::to_string(k->gridZ) + "] block [" + std::to_string(k->blockX) + ", " +
                     std::to_string(k->blockY) + ", " + std::to_string(k->blockZ) + "] stream " +
                     std::to_string(k->streamId);
          a.correlation = k->correlationId;
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
          a = memory_activity(*m, profiler::Event::Kind::GpuMemcpy, std::string("Memcpy ") + copy_kind(m->copyKind));
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(record);
          a = memory_activity(*m, profiler::Event::Kind::GpuMemset, "Memset");
          break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          auto* c = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(record);
          if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            operator_of_[c->correlationId] = c->externalId;
          continue;
        }
        default: continue;
      }
      activities_.push_back(std::move(a));
    }
  }

  std::mutex mutex_;
  std::vector<Activity> activities_;
  std::unordered_map<uint32_t, uint64_t> operator_of_;
  int64_t offset_ = 0;  // steady_clock minus CUPTI's clock
};

const bool registered = [] {
  profiler::register_gpu_activity_source(&CuptiSource::instance());
  return true;
}();

}  // namespace

}  // namespace glassbox::cuda
