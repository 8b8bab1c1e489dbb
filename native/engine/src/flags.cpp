#include "flags.h"

namespace nhref {
namespace {

bool readBool(const std::function<const char*(const char*)>& getenv, const char* name, bool dflt) {
  const char* v = getenv(name);
  if (v == nullptr) return dflt;
  const std::string s(v);
  if (s == "1") return true;
  if (s == "0") return false;
  throw FlagError(std::string(name) + "='" + s + "' is not a value this engine knows: set it to 1 or 0, or unset it (default " +
                  (dflt ? "1" : "0") + ")");
}

}  // namespace

RunFlags readFlags(const std::function<const char*(const char*)>& getenv) {
  RunFlags f;
  f.engine.decodeStep = readBool(getenv, "NH_REF_MAMBA_DECODE_STEP", true);
  f.engine.deviceMamba = readBool(getenv, "NH_REF_DEVICE_MAMBA", false);
  f.engine.deviceForward = readBool(getenv, "NH_REF_DEVICE_FORWARD", true);
  f.armTrace = readBool(getenv, "NH_REF_ARM_TRACE", false);
  return f;
}

}  // namespace nhref
