// spsc_ring_demo.cpp — the ring in production: std_sync (std::atomic), two real threads, 100 000
// items through a ring of 64. Exit status 0 when the consumer received 0, 1, 2, ... in order.
#include "spsc_ring.hpp"

#include <cstdio>
#include <thread>

int main() {
  constexpr long items = 100'000;
  outside::spsc_ring<long, 64> ring;
  std::thread producer([&] {
    for (long x = 0; x < items;)
      if (ring.try_push(x)) ++x;
  });
  long expected = 0, wrong = 0;
  while (expected < items) {
    if (auto v = ring.try_pop()) {
      if (*v != expected) ++wrong;
      ++expected;
    }
  }
  producer.join();
  if (wrong != 0) {
    std::fprintf(stderr, "spsc_ring_demo: %ld of %ld items out of order\n", wrong, items);
    return 1;
  }
  std::printf("spsc_ring_demo: %ld items received in order\n", items);
  return 0;
}
