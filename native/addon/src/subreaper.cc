// The child subreaper (prctl PR_SET_CHILD_SUBREAPER, Linux ≥ 3.4): an orphan anywhere below this process —
// an engine's worker that started its own session, a daemon whose parent exited — is re-parented here
// instead of to init, so nh-gate can still find it (its ppid is ours) and end it with the leg.
#include "subreaper.h"

#include <cerrno>
#include <cstring>
#include <string>

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#endif

namespace {

Napi::Object failure(Napi::Env env, const char* code, const std::string& message) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("ok", false);
  o.Set("code", code);
  o.Set("message", message);
  return o;
}

}  // namespace

Napi::Value SetChildSubreaper(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    return failure(env, "PRCTL_FAILED", std::string("prctl(PR_SET_CHILD_SUBREAPER): ") + std::strerror(errno));
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("ok", true);
  return o;
#else
  return failure(env, "UNSUPPORTED", "PR_SET_CHILD_SUBREAPER is Linux-only");
#endif
}

Napi::Value IsChildSubreaper(const Napi::CallbackInfo& info) {
#if defined(__linux__) && defined(PR_GET_CHILD_SUBREAPER)
  int on = 0;
  if (prctl(PR_GET_CHILD_SUBREAPER, &on, 0, 0, 0) != 0) return Napi::Boolean::New(info.Env(), false);
  return Napi::Boolean::New(info.Env(), on != 0);
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

Napi::Value ReapChild(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) return Napi::Boolean::New(env, false);
  const double d = info[0].As<Napi::Number>().DoubleValue();
  // Only a positive pid: 0 and -1 would wait for any child, Node's own included.
  if (!(d >= 2 && d <= 4194304)) return Napi::Boolean::New(env, false);
#if defined(__linux__)
  int status = 0;
  pid_t r;
  do r = waitpid(static_cast<pid_t>(d), &status, WNOHANG);
  while (r < 0 && errno == EINTR);
  return Napi::Boolean::New(env, r > 0);
#else
  return Napi::Boolean::New(env, false);
#endif
}
