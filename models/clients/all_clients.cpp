// models/clients/all_clients.cpp — the list of ported GenMC clients (client.hpp).
#include "client.hpp"

namespace pilfer::model::clients {

std::vector<client> all_clients() {
  return {chase_lev_client(),    treiber_stack_client(),      ms_queue_client(),   ms_queue_loops_client(),
          ms_queue_3_client(),   linuxrwlocks_client(),       linuxrwlocks_loops_client(),
          mpmc_queue_client(),   qu_client(),                 spinlock_client(),   ticketlock_client(),
          fib_bench_client(),    ainc_client(),               conf_loop_small_client(), conf_loop_client()};
}

}  // namespace pilfer::model::clients
