// The bytes of one kernel cache file: encode() writes them, decode() validates them against the
// key the caller is looking for. Pure functions over memory; cache_files.h does the disk I/O.
//
// Note [Kernel cache entry format]
// One file per entry, all integers little-endian:
//
//   offset  size  field
//        0     8  magic "LGKCACHE"
//        8     4  format version (kEntryFormatVersion)
//       12     4  key length K
//       16     8  payload length P
//       24     8  payload checksum: digest64(payload)
//       32     K  the full key text (KernelKey::text(): source hash, toolchain, driver, arch,
//       options)
//     32+K     P  the payload (PTX, cubin, ...)
//
// The file must be exactly 32 + K + P bytes. The file name is a digest of the key, so two keys may
// share a name; the stored key is compared in full on load and a mismatch is treated like any
// other invalid entry (deleted, rebuilt), never returned. Any change to this layout bumps
// kEntryFormatVersion, so old files read as invalid and are rebuilt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lazygen::kernel_cache {

inline constexpr char kEntryMagic[8] = {'L', 'G', 'K', 'C', 'A', 'C', 'H', 'E'};
inline constexpr uint32_t kEntryFormatVersion = 1;
inline constexpr size_t kEntryHeaderBytes = 32;

// Why an entry is (not) usable; everything but kOk means "delete and rebuild".
enum class EntryStatus {
  kOk,
  kTruncatedHeader,   // shorter than the fixed header (an empty file included)
  kBadMagic,          // not a kernel cache file
  kBadVersion,        // written by another format version
  kTruncatedPayload,  // shorter than the header says
  kTrailingBytes,     // longer than the header says
  kKeyMismatch,       // another key's entry under this file name
  kBadChecksum,       // payload bytes changed
};

// The file's bytes for `key` and `payload`.
std::string encode_entry(std::string_view key, std::string_view payload);

struct DecodedEntry {
  EntryStatus status = EntryStatus::kOk;
  std::string_view payload;  // into the decoded bytes; empty unless status == kOk
};

// Validates `bytes` as the entry for `expected_key`. Never throws on malformed input.
DecodedEntry decode_entry(std::string_view bytes, std::string_view expected_key);

}  // namespace lazygen::kernel_cache
