// device.h — the CUDA device arm's host-side interface (NH_REF_DEVICE_MAMBA): Mamba blocks on
// the GPU. A non-CUDA build links the stub in device_host.cpp, which reports why there is none.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "mamba.h"

namespace nhref {

// Whether this binary carries the device arm, and for which archs (the configure list).
bool cudaBuild();
std::string cudaBuildArchs();

// The running GPU, or why there is none usable.
struct DeviceInfo {
  bool available = false;
  std::string name;
  std::string why;
  int ccMajor = 0, ccMinor = 0;
};
DeviceInfo probeDevice();

// Device ops that have NO kernel for the running GPU's arch (the reference tier runs them on host).
std::vector<std::string> missingDeviceOps();

// One Mamba layer resident on the device: weights uploaded once, state kept on the device.
class DeviceMamba {
 public:
  virtual ~DeviceMamba() = default;
  // The mixer over u [T][D] from a fresh state (host in, host out).
  virtual void prefill(const float* u, int T, float* out) = 0;
  // One new position: decodeStep=true single-step update; false re-scans the whole prefix.
  virtual void decode(const float* u, float* out, bool decodeStep) = 0;
};

// nullptr on a non-CUDA build; throws std::runtime_error naming the CUDA call that failed.
std::unique_ptr<DeviceMamba> createDeviceMamba(const Config& c, const MambaWeights& w);

}  // namespace nhref
