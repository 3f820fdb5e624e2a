// Code pages that only the libraries' start-up touched. Loading libdnnl runs
// its static initialisers, which fault in (64 KiB at a time, the kernel's
// fault-around) about 11 MiB of its code that no kernel runs again; popart's
// own op registrations do the same with a few MiB of its libraries. Those
// pages are clean copies of the library files, so they can be unmapped from
// the process and faulted back from the page cache if something runs them.
#pragma once

namespace popart::popx {

/// Once per process: unmaps the resident code pages of libdnnl and popart's
/// libraries (madvise MADV_DONTNEED on their executable segments), so the
/// resident set holds only the code that runs afterwards. Nothing if the
/// environment sets POPART_KEEP_STARTUP_PAGES=1.
void releaseStartupPages();

} // namespace popart::popx
