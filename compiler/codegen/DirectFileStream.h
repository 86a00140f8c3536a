// SPDX-License-Identifier: Apache-2.0
// An output stream that writes large files past the page cache (O_DIRECT):
// on the 2-core VMs mxc is measured on, a buffered write that needs new
// page-cache pages runs at 150-350 MB/s while a direct write of the same
// bytes runs at ~1.9 GB/s (docs/compile-time.md, "Writing large weights").
#ifndef MXC_COMPILER_CODEGEN_DIRECTFILESTREAM_H
#define MXC_COMPILER_CODEGEN_DIRECTFILESTREAM_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mxc {

/// Writes a file, or a range of an existing one from `offset` on, in
/// direct-I/O blocks once more than one staging buffer (8 MiB) has been
/// written; what is not a whole block (a file's last partial block, bytes
/// before the first block boundary after `offset`) and everything on a file
/// system without O_DIRECT (tmpfs) goes through ordinary writes. A small
/// file is therefore written as before: one buffered write at close().
/// Errors are reported like raw_fd_ostream's (has_error(), error()).
class DirectFileStream : public llvm::raw_ostream {
public:
  /// Opens `path` for writing: created or truncated when `truncate`, else an
  /// existing file written in place from `offset` on.
  DirectFileStream(const std::string &path, std::error_code &ec, bool truncate,
                   uint64_t offset = 0);
  ~DirectFileStream() override;

  /// Writes what is staged and closes the file; errors land in error().
  void close();
  bool has_error() const { return bool(ec); }
  std::error_code error() const { return ec; }
  void clear_error() { ec = {}; }
  /// Whether any block went to the file by direct I/O.
  bool wroteDirect() const { return directBytes > 0; }

  /// The staging buffer's size, a multiple of kBlock.
  static constexpr size_t kStaging = size_t(8) << 20;
  /// The alignment direct I/O needs here (the largest logical block size of
  /// Linux file systems on 4 KiB-page machines).
  static constexpr size_t kBlock = 4096;

private:
  void write_impl(const char *ptr, size_t size) override;
  uint64_t current_pos() const override { return pos; }

  /// Writes the staged bytes: whole blocks direct once the file has
  /// outgrown one round (or `!last`), the rest buffered.
  void flushStaging(bool last);
  void writeAt(int fd, const char *data, size_t size, uint64_t at);

  int bufferedFd = -1, directFd = -1;
  std::error_code ec;
  uint64_t pos;         // the file offset of the next byte
  uint64_t stagedStart; // the file offset of staging[0]
  size_t staged;        // bytes of staging in use, `front` included
  std::unique_ptr<char, void (*)(void *)> staging;
  std::string path;
  /// Bytes at the start of the first round before `offset`: not written.
  size_t front;
  /// Whether the direct descriptor was opened (at the first full round).
  bool triedDirect = false;
  uint64_t directBytes = 0;
};

} // namespace mxc

#endif // MXC_COMPILER_CODEGEN_DIRECTFILESTREAM_H
