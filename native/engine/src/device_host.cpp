// The device arm's stub for builds without CUDA: it says, by name, why there is no device.
#include "device.h"

namespace nhref {

#if !NH_REF_HAVE_CUDA
bool cudaBuild() { return false; }
std::string cudaBuildArchs() { return ""; }
DeviceInfo probeDevice() {
  DeviceInfo d;
  d.why = "this nh-ref-gen was built without CUDA (configure with -DNH_REF_CUDA=ON -DNH_REF_CUDA_ARCHITECTURES=<arch>)";
  return d;
}
std::vector<std::string> missingDeviceOps() { return {}; }
std::unique_ptr<DeviceMamba> createDeviceMamba(const Config&, const MambaWeights&) { return nullptr; }
std::vector<std::string> missingForwardOps() { return {}; }
std::unique_ptr<DeviceAttention> createDeviceAttention(const Config&, const AttnWeights&) { return nullptr; }
std::unique_ptr<DeviceMoe> createDeviceMoe(const Config&, const MoeWeights&) { return nullptr; }
std::unique_ptr<DeviceHead> createDeviceHead(const Config&, const float*) { return nullptr; }
#else
std::string cudaBuildArchs() { return NH_REF_CUDA_ARCHS; }
#endif

}  // namespace nhref
