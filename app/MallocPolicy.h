#pragma once

namespace forkscope::app {

// Called first in main(): keeps the process's memory near what it holds (bench/README.md,
// "Peak RSS"). A no-op where the C library is not glibc, or when the user set
// MALLOC_MMAP_THRESHOLD_ themselves.
void applyMallocPolicy();

} // namespace forkscope::app
