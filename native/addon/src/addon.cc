// N-API surface of nh_nvml: one registration list at the bottom; every failure is a JS Error with a
// stable `code` (NVML_UNAVAILABLE, NVML_SYMBOL_MISSING, NVML_INIT_FAILED, NVML_ERROR, NO_SUCH_DEVICE,
// SAMPLER_NOT_STARTED, SAMPLER_ALREADY_STARTED, SAMPLER_ALREADY_STOPPED, BAD_ARGUMENT).
#include <napi.h>

#include <cmath>
#include <memory>

#include "nvml_lib.h"
#include "probe.h"
#include "sampler.h"
#include "subreaper.h"

namespace {

Napi::Error coded(Napi::Env env, const std::string& code, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, code));
  return e;
}

// Opens NVML or throws its reason (with the dlerror text) as a coded error.
NvmlLib* requireNvml(Napi::Env env) {
  const NvmlOpen& o = nvmlOpen();
  if (!o.ok) throw coded(env, o.code, o.message);
  return o.lib;
}

nvmlDevice_t requireDevice(Napi::Env env, NvmlLib* lib, unsigned index) {
  unsigned count = 0;
  nvmlReturn_t r = lib->deviceGetCount(&count);
  if (r != NVML_SUCCESS) throw coded(env, "NVML_ERROR", "nvmlDeviceGetCount_v2: " + nvmlDescribe(lib, r));
  if (index >= count)
    throw coded(env, "NO_SUCH_DEVICE", "device index " + std::to_string(index) + " does not exist: NVML sees " +
                                           std::to_string(count) + " device(s)");
  nvmlDevice_t dev = nullptr;
  r = lib->deviceGetHandleByIndex(index, &dev);
  if (r != NVML_SUCCESS) throw coded(env, "NVML_ERROR", "nvmlDeviceGetHandleByIndex_v2: " + nvmlDescribe(lib, r));
  return dev;
}

Napi::Value num(Napi::Env env, double v, bool ok = true) {
  return ok && std::isfinite(v) ? Napi::Value(Napi::Number::New(env, v)) : env.Null();
}

Napi::Object offsetToJs(Napi::Env env, const ClockOffset& o) {
  Napi::Object x = Napi::Object::New(env);
  x.Set("offsetS", o.offsetS);
  x.Set("bracketS", o.bracketS);
  x.Set("monoS", o.monoS);
  return x;
}

Napi::Object recordsToJs(Napi::Env env, const Records& r) {
  Napi::Object out = Napi::Object::New(env);
  Napi::Array util = Napi::Array::New(env, r.util.size());
  for (size_t i = 0; i < r.util.size(); ++i) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("tsUs", double(r.util[i].tsUs));
    x.Set("prevTsUs", num(env, double(r.util[i].prevTsUs), r.util[i].prevTsUs != 0));
    x.Set("pct", num(env, r.util[i].pct));
    util[i] = x;
  }
  Napi::Array polled = Napi::Array::New(env, r.polled.size());
  for (size_t i = 0; i < r.polled.size(); ++i) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("tS", r.polled[i].tMonoS);
    x.Set("gpuPct", r.polled[i].gpu);
    x.Set("memPct", r.polled[i].mem);
    polled[i] = x;
  }
  Napi::Array gpm = Napi::Array::New(env, r.gpm.size());
  for (size_t i = 0; i < r.gpm.size(); ++i) {
    const GpmRec& g = r.gpm[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("tS", g.tMonoS);
    x.Set("intervalS", g.intervalS);
    x.Set("smUtilPct", num(env, g.sm, g.smOk));
    x.Set("smOccupancyPct", num(env, g.occ, g.occOk));
    x.Set("dramBwUtilPct", num(env, g.dram, g.dramOk));
    gpm[i] = x;
  }
  Napi::Array clocks = Napi::Array::New(env, r.clocks.size());
  for (size_t i = 0; i < r.clocks.size(); ++i) {
    const ClockRec& c = r.clocks[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("tS", c.tMonoS);
    x.Set("smMHz", num(env, double(c.smMHz), c.smMHz >= 0));
    x.Set("memMHz", num(env, double(c.memMHz), c.memMHz >= 0));
    x.Set("reasonsMask", num(env, double(c.reasons), c.reasons >= 0));
    clocks[i] = x;
  }
  Napi::Array procs = Napi::Array::New(env, r.procs.size());
  for (size_t i = 0; i < r.procs.size(); ++i) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("tS", r.procs[i].tMonoS);
    Napi::Array pids = Napi::Array::New(env, r.procs[i].pids.size());
    for (size_t k = 0; k < r.procs[i].pids.size(); ++k) pids[k] = Napi::Number::New(env, r.procs[i].pids[k]);
    x.Set("pids", pids);
    procs[i] = x;
  }
  Napi::Array errors = Napi::Array::New(env, r.errors.size());
  for (size_t i = 0; i < r.errors.size(); ++i) {
    Napi::Object x = Napi::Object::New(env);
    x.Set("tS", r.errors[i].tMonoS);
    x.Set("what", r.errors[i].what);
    x.Set("message", r.errors[i].message);
    errors[i] = x;
  }
  out.Set("util", util);
  out.Set("polled", polled);
  out.Set("gpm", gpm);
  out.Set("clocks", clocks);
  out.Set("procs", procs);
  out.Set("errors", errors);
  return out;
}

Napi::Object metaToJs(Napi::Env env, const SamplerMeta& m) {
  Napi::Object x = Napi::Object::New(env);
  x.Set("startOffset", offsetToJs(env, m.startOffset));
  x.Set("stopOffset", offsetToJs(env, m.stopOffset));
  x.Set("clockCheck", m.clockCheck);
  x.Set("startMonoS", m.startMonoS);
  x.Set("stopMonoS", m.stopMonoS);
  x.Set("threadCpuS", m.threadCpuS);
  x.Set("failed", m.failed);
  x.Set("failedAtMonoS", num(env, m.failedAtMonoS, m.failed));
  x.Set("gpmStatus", m.gpmStatus);
  x.Set("utilStatus", m.utilStatus);
  x.Set("tailCovered", m.tailCovered);
  x.Set("bufferSamples", m.bufferSamples);
  x.Set("bufferSpanS", m.bufferSpanS);
  x.Set("utilEveryS", m.utilEveryS);
  x.Set("utilGaps", m.utilGaps);
  Napi::Object cpu = Napi::Object::New(env);
  cpu.Set("utilS", m.cpuUtilS);
  cpu.Set("polledAndClocksS", m.cpuPolledS);
  cpu.Set("gpmS", m.cpuGpmS);
  cpu.Set("procsS", m.cpuProcsS);
  x.Set("cpuByActivity", cpu);
  return x;
}

unsigned optUnsigned(Napi::Object o, const char* key, unsigned dflt, unsigned lo, unsigned hi) {
  if (!o.Has(key) || o.Get(key).IsUndefined()) return dflt;
  Napi::Value v = o.Get(key);
  if (!v.IsNumber()) throw coded(o.Env(), "BAD_ARGUMENT", std::string(key) + " must be a number");
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= lo && d <= hi) || std::floor(d) != d)
    throw coded(o.Env(), "BAD_ARGUMENT",
                std::string(key) + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return unsigned(d);
}

class SamplerWrap : public Napi::ObjectWrap<SamplerWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Sampler",
                       {InstanceMethod("start", &SamplerWrap::Start), InstanceMethod("drain", &SamplerWrap::Drain),
                        InstanceMethod("info", &SamplerWrap::Info),
                        InstanceMethod("stop", &SamplerWrap::Stop)});
  }
  explicit SamplerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SamplerWrap>(info) {
    Napi::Object o = info.Length() > 0 && info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(info.Env());
    opts_.deviceIndex = optUnsigned(o, "deviceIndex", 0, 0, 63);
    opts_.periodMs = optUnsigned(o, "periodMs", 250, 10, 10000);
    opts_.utilEveryMs = optUnsigned(o, "utilEveryMs", 0, 0, 60000);
    opts_.gpmIntervalMs = optUnsigned(o, "gpmIntervalMs", 1000, 100, 60000);
    opts_.procsEveryMs = optUnsigned(o, "procsEveryMs", 2000, 10, 60000);
    opts_.tailMs = optUnsigned(o, "tailMs", 1500, 0, 10000);
  }

 private:
  enum class State { Idle, Running, Stopping, Stopped };

  Napi::Value Start(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state_ != State::Idle)
      throw coded(env, "SAMPLER_ALREADY_STARTED", "start() called twice: a sampler runs once; create a new one");
    NvmlLib* lib = requireNvml(env);
    nvmlDevice_t dev = requireDevice(env, lib, opts_.deviceIndex);
    sampler_ = std::make_shared<Sampler>(lib, dev, opts_);
    sampler_->start();
    state_ = State::Running;
    return env.Undefined();
  }

  Napi::Value Drain(const Napi::CallbackInfo& info) {
    if (state_ == State::Idle) throw coded(info.Env(), "SAMPLER_NOT_STARTED", "drain() before start()");
    return recordsToJs(info.Env(), sampler_->drain());
  }

  // Start-time facts (clock offset and check, util/GPM status) needed to convert samples while running.
  Napi::Value Info(const Napi::CallbackInfo& info) {
    if (state_ == State::Idle) throw coded(info.Env(), "SAMPLER_NOT_STARTED", "info() before start()");
    return metaToJs(info.Env(), sampler_->startMeta());
  }

  Napi::Value Stop(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state_ == State::Idle) throw coded(env, "SAMPLER_NOT_STARTED", "stop() without start(): nothing is sampling");
    if (state_ != State::Running) throw coded(env, "SAMPLER_ALREADY_STOPPED", "stop() called twice");
    state_ = State::Stopping;
    auto* w = new StopWorker(env, this, sampler_);
    Napi::Promise p = w->Promise();
    w->Queue();
    return p;
  }

  // Joins the thread (tail wait included) off the JS thread, then resolves with the rest of the records.
  class StopWorker : public Napi::AsyncWorker {
   public:
    StopWorker(Napi::Env env, SamplerWrap* owner, std::shared_ptr<Sampler> s)
        : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), owner_(owner), s_(std::move(s)) {
      ref_ = Napi::Persistent(owner->Value());
    }
    Napi::Promise Promise() { return deferred_.Promise(); }
    void Execute() override { s_->stopAndJoin(); }
    void OnOK() override {
      Napi::Env env = Env();
      Napi::Object out = recordsToJs(env, s_->drain());
      out.Set("meta", metaToJs(env, s_->meta()));
      owner_->state_ = State::Stopped;
      deferred_.Resolve(out);
    }
    void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

   private:
    Napi::Promise::Deferred deferred_;
    SamplerWrap* owner_;
    std::shared_ptr<Sampler> s_;
    Napi::ObjectReference ref_;
  };

  SamplerOptions opts_;
  std::shared_ptr<Sampler> sampler_;
  State state_ = State::Idle;
};

Napi::Value Probe(const Napi::CallbackInfo& info) { return probeToJs(info.Env()); }

Napi::Value ComputeProcesses(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw coded(env, "BAD_ARGUMENT", "computeProcesses(deviceIndex: number)");
  NvmlLib* lib = requireNvml(env);
  nvmlDevice_t dev = requireDevice(env, lib, info[0].As<Napi::Number>().Uint32Value());
  return processesToJs(env, lib, dev);
}

Napi::Value MonotonicNowS(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), monoNowS()); }

Napi::Value ClockOffsetNow(const Napi::CallbackInfo& info) { return offsetToJs(info.Env(), measureClockOffset()); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // The one list of exports.
  exports.Set("abiVersion", Napi::Number::New(env, 2));  // 2: tail past the stop, pre-start level, buffer-sized drains (#23)
  exports.Set("probe", Napi::Function::New(env, Probe, "probe"));
  exports.Set("computeProcesses", Napi::Function::New(env, ComputeProcesses, "computeProcesses"));
  exports.Set("monotonicNowS", Napi::Function::New(env, MonotonicNowS, "monotonicNowS"));
  exports.Set("clockOffset", Napi::Function::New(env, ClockOffsetNow, "clockOffset"));
  exports.Set("Sampler", SamplerWrap::Define(env));
  exports.Set("setChildSubreaper", Napi::Function::New(env, SetChildSubreaper, "setChildSubreaper"));
  exports.Set("isChildSubreaper", Napi::Function::New(env, IsChildSubreaper, "isChildSubreaper"));
  exports.Set("reapChild", Napi::Function::New(env, ReapChild, "reapChild"));
  return exports;
}

}  // namespace

NODE_API_MODULE(nh_nvml, Init)
