// Encoding and validation of kernel cache files. See Note [Kernel cache entry format].
#include "backend/kernel_cache/entry_format.h"

#include <cstring>

#include "backend/kernel_cache/digest.h"

namespace lazygen::kernel_cache {
namespace {

constexpr size_t kVersionAt = 8;
constexpr size_t kKeyLengthAt = 12;
constexpr size_t kPayloadLengthAt = 16;
constexpr size_t kChecksumAt = 24;

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_le(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<size_t>(i)]);
  }
  return v;
}

// The status of the fixed header and the file's length; kOk when both are sound.
EntryStatus check_layout(std::string_view bytes) {
  if (bytes.size() < kEntryHeaderBytes) return EntryStatus::kTruncatedHeader;
  if (std::memcmp(bytes.data(), kEntryMagic, sizeof kEntryMagic) != 0)
    return EntryStatus::kBadMagic;
  if (get_le(bytes, kVersionAt, 4) != kEntryFormatVersion) return EntryStatus::kBadVersion;
  const uint64_t key_length = get_le(bytes, kKeyLengthAt, 4);
  const uint64_t payload_length = get_le(bytes, kPayloadLengthAt, 8);
  const uint64_t body = bytes.size() - kEntryHeaderBytes;
  // Compared without adding the two lengths, which a corrupt header could make overflow.
  if (key_length > body || payload_length > body - key_length) {
    return EntryStatus::kTruncatedPayload;
  }
  if (key_length + payload_length < body) return EntryStatus::kTrailingBytes;
  return EntryStatus::kOk;
}

}  // namespace

std::string encode_entry(std::string_view key, std::string_view payload) {
  std::string out;
  out.reserve(kEntryHeaderBytes + key.size() + payload.size());
  out.append(kEntryMagic, sizeof kEntryMagic);
  put_le(out, kEntryFormatVersion, 4);
  put_le(out, key.size(), 4);
  put_le(out, payload.size(), 8);
  put_le(out, digest64(payload), 8);
  out.append(key);
  out.append(payload);
  return out;
}

DecodedEntry decode_entry(std::string_view bytes, std::string_view expected_key) {
  if (EntryStatus layout = check_layout(bytes); layout != EntryStatus::kOk) return {layout, {}};
  const size_t key_length = get_le(bytes, kKeyLengthAt, 4);
  if (bytes.substr(kEntryHeaderBytes, key_length) != expected_key) {
    return {EntryStatus::kKeyMismatch, {}};
  }
  std::string_view payload = bytes.substr(kEntryHeaderBytes + key_length);
  if (digest64(payload) != get_le(bytes, kChecksumAt, 8)) return {EntryStatus::kBadChecksum, {}};
  return {EntryStatus::kOk, payload};
}

}  // namespace lazygen::kernel_cache
