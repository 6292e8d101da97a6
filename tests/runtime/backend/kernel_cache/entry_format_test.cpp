// Tests of the kernel cache file format (backend/kernel_cache/entry_format.h): a round trip, and
// each kind of damage is reported as its own status.
#include "backend/kernel_cache/entry_format.h"

#include <gtest/gtest.h>

#include <string>

#include "backend/kernel_cache/digest.h"

namespace lazygen::kernel_cache {
namespace {

const std::string kKey = "lazygen kernel key\nsource_hash=4:abcd\n";
const std::string kPayload = "// ptx\n.version 9.0\n";

EntryStatus status_of(const std::string& bytes) {
  return decode_entry(bytes, kKey).status;
}

TEST(EntryFormat, RoundTripsKeyAndPayload) {
  const std::string bytes = encode_entry(kKey, kPayload);
  EXPECT_EQ(bytes.size(), kEntryHeaderBytes + kKey.size() + kPayload.size());
  DecodedEntry entry = decode_entry(bytes, kKey);
  ASSERT_EQ(entry.status, EntryStatus::kOk);
  EXPECT_EQ(entry.payload, kPayload);
}

TEST(EntryFormat, RoundTripsAnEmptyPayloadAndBinaryBytes) {
  EXPECT_EQ(decode_entry(encode_entry(kKey, ""), kKey).payload, "");
  const std::string binary("\0\xff\x01\n", 4);
  EXPECT_EQ(decode_entry(encode_entry(kKey, binary), kKey).payload, binary);
}

TEST(EntryFormat, DetectsEachKindOfDamage) {
  const std::string good = encode_entry(kKey, kPayload);
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  std::string bad_version = good;
  bad_version[8] = static_cast<char>(kEntryFormatVersion + 1);
  std::string flipped = good;
  flipped.back() ^= 0x01;
  EXPECT_EQ(status_of(""), EntryStatus::kTruncatedHeader);
  EXPECT_EQ(status_of(good.substr(0, kEntryHeaderBytes - 1)), EntryStatus::kTruncatedHeader);
  EXPECT_EQ(status_of(bad_magic), EntryStatus::kBadMagic);
  EXPECT_EQ(status_of(bad_version), EntryStatus::kBadVersion);
  EXPECT_EQ(status_of(good.substr(0, good.size() - 1)), EntryStatus::kTruncatedPayload);
  EXPECT_EQ(status_of(good.substr(0, kEntryHeaderBytes + 2)), EntryStatus::kTruncatedPayload);
  EXPECT_EQ(status_of(good + "x"), EntryStatus::kTrailingBytes);
  EXPECT_EQ(status_of(flipped), EntryStatus::kBadChecksum);
  EXPECT_EQ(decode_entry(good, kKey + "x").status, EntryStatus::kKeyMismatch);
}

TEST(EntryFormat, HugeLengthsInACorruptHeaderAreTruncationNotOverflow) {
  std::string bytes = encode_entry(kKey, kPayload);
  for (size_t i = 12; i < 24; ++i) bytes[i] = '\xff';  // key and payload lengths
  EXPECT_EQ(status_of(bytes), EntryStatus::kTruncatedPayload);
}

TEST(Digest, IsStableAndSeeded) {
  EXPECT_EQ(digest64("kernel"), digest64("kernel"));
  EXPECT_NE(digest64("kernel"), digest64("kernel", 1));
  EXPECT_NE(digest64("kernel"), digest64("kernek"));
  EXPECT_EQ(hex64(0x0123456789abcdefULL), "0123456789abcdef");
  EXPECT_EQ(source_digest("a").size(), 32u);
  EXPECT_NE(source_digest("a"), source_digest("b"));
}

}  // namespace
}  // namespace lazygen::kernel_cache
