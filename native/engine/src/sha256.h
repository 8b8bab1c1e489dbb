// sha256.h — FIPS 180-4 SHA-256, so the engine can pin checkpoint content without a crypto dependency.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace nhref {

// Hex digest of a byte range: the checkpoint's identity.
std::string sha256Hex(const uint8_t* data, size_t size);

}  // namespace nhref
