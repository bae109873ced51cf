// tests/cxx/chan_item.cpp: must NOT compile (the test cxx_chan_item expects the
// static_assert's message). A channel copies its items byte by byte, so ITO_CHAN_TYPED
// of a C++ type that is not trivially copyable would free a std::string's buffer twice
// (once by the sender's object, once by the receiver's; ASan: double-free). Found by h60b,
// 2026-12-05. The trivially copyable item below compiles.
#include <ito/channel.h>
#include <string>

struct point { int x, y; };
ITO_CHAN_TYPED(point_chan, struct point)
ITO_CHAN_TYPED(str_chan, std::string)

int main() { return 0; }
