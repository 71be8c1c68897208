// models/clients/all_clients.cpp — the list of ported GenMC clients (client.hpp).
#include "client.hpp"

namespace pilfer::model::clients {

std::vector<client> all_clients() {
  std::vector<client> all{chase_lev_client(),    treiber_stack_client(),      ms_queue_client(),   ms_queue_loops_client(),
          ms_queue_3_client(),   linuxrwlocks_client(),       linuxrwlocks_loops_client(),
          mpmc_queue_client(),   qu_client(),                 spinlock_client(),   ticketlock_client(),
          fib_bench_client(),    ainc_client(),               conf_loop_small_client(), conf_loop_client()};
  for (client& c : ms_queue_variant_clients()) all.push_back(std::move(c));
  return all;
}

}  // namespace pilfer::model::clients
