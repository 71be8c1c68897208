// models/engine/fibers.cpp — modelled threads as fibers: context switching, scheduling points, stranding.
//
// How an execution runs
//   Modelled threads are fibers (ucontext) on the calling OS thread. Every atomic operation,
//   fence, mutex operation, wait/notify, spawn/join and yield is a SCHEDULING POINT: the fiber
//   stops before it and the scheduler picks which enabled thread performs its next operation.
//   When the operation runs it becomes an EVENT of the execution graph, and further DECISIONS
//   are taken inline: which write a read reads from (rf), where a write goes in modification
//   order (mo), which waiter a notify_one wakes. Cell (plain memory) accesses are events
//   checked for data races, not scheduling points.
#include "checker.hpp"

#include <cstdio>
#include <cstdlib>

namespace pilfer::model::engine {

constexpr std::size_t stack_size = 256 * 1024;

void checker::fiber_entry() {
  checker& c = *g;
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &c.sched_bottom_, &c.sched_size_);
#endif
  if (c.finishing_) ++c.finish_progress_;
  if (c.cur_ == 0)
    c.main_body();
  else
    c.threads_[c.cur_].body->run();
  c.finish_thread();
}

void checker::finish_thread() {
  mthread& th = threads_[cur_];
  if (live()) {
    event e = make_event(ek::finish, none, std::source_location::current());
    compute_views(e, th);
    const auto gid = add_event(e, none);
    commit(gid);
    for (auto& o : threads_)  // a spinner may be waiting for this thread to finish
      if (o.status == tstatus::yielded) o.status = tstatus::runnable;
  } else {
    ++finish_progress_;
  }
  th.status = tstatus::finished;
  switch_to_scheduler(true);
  std::abort();  // never resumed
}

/// The main thread. Finishing an execution cut short before the scenario's threads started
/// (or before after()) skips them: only the scenario's destruction is left to run.
void checker::main_body() {
  scenario_ = make_();
  if (live()) start_symmetry(*scenario_);
  scenario_->before();
  scenario* s = scenario_.get();
  main_threads_.clear();
  main_threads_.reserve(max_threads);  // a member: this frame may be stranded
  if (live())
    for (unsigned i = 0; i < s->threads(); ++i) {
      spawning_body_ = i;  // (a symmetric group's member is labeled by its body: symmetry.cpp)
      main_threads_.emplace_back([s, i] { s->thread(i); });
      spawning_body_ = none;
    }
  for (auto& t : main_threads_) t.join();
  if (live()) scenario_->after();
  if (live()) check_symmetry_kept(*scenario_);
  scenario_.reset();
}

// Context switching. On x86-64 a 14-instruction switch (callee-saved registers + stack
// pointer); ucontext's swapcontext costs two sigprocmask system calls per switch, which
// dominated exploration time. Other targets use ucontext.
#if defined(__x86_64__) && !defined(PILFER_MODEL_UCONTEXT)
#define PILFER_MODEL_ASM_SWITCH 1
extern "C" void pilfer_model_switch(void** save_sp, void* next_sp);
asm(R"(
.text
.globl pilfer_model_switch
.type pilfer_model_switch,@function
pilfer_model_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size pilfer_model_switch,.-pilfer_model_switch
.section .note.GNU-stack,"",@progbits
.text
)");
#endif

void checker::switch_to(std::uint32_t t) {
  mthread& th = threads_[t];
  cur_ = t;
  if (!th.started) {
    th.started = true;
    const std::size_t slot = t;
    while (stacks_.size() <= slot) stacks_.push_back(std::make_unique<char[]>(stack_size));
#if defined(PILFER_MODEL_ASAN)
    // a stranded fiber of an earlier execution left its frames' poison behind
    __asan_unpoison_memory_region(stacks_[slot].get(), stack_size);
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
    auto top = reinterpret_cast<std::uintptr_t>(stacks_[slot].get() + stack_size) & ~std::uintptr_t{15};
    auto* sp = reinterpret_cast<void**>(top);
    *--sp = nullptr;                                                  // fake return address
    *--sp = reinterpret_cast<void*>(&checker::fiber_entry);           // `ret` target
    for (int i = 0; i < 6; ++i) *--sp = nullptr;                      // rbp rbx r12-r15
    th.sp = sp;
#else
    while (contexts_.size() <= slot) contexts_.push_back(std::make_unique<ucontext_t>());
    ucontext_t& ctx = *contexts_[slot];
    getcontext(&ctx);
    ctx.uc_stack.ss_sp = stacks_[slot].get();
    ctx.uc_stack.ss_size = stack_size;
    ctx.uc_link = &sched_ctx_;
    makecontext(&ctx, &checker::fiber_entry, 0);
#endif
  }
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_start_switch_fiber(&fake_stack_, stacks_[t].get(), stack_size);
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
  pilfer_model_switch(&sched_sp_, th.sp);
#else
  swapcontext(&sched_ctx_, contexts_[t].get());
#endif
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack_, nullptr, nullptr);
#endif
}

void checker::switch_to_scheduler(bool for_good) {
#if defined(PILFER_MODEL_ASAN)
  void* fake = nullptr;
  // leaving for good: null lets ASan free this fiber's fake stack
  __sanitizer_start_switch_fiber(for_good ? nullptr : &fake, sched_bottom_, sched_size_);
#else
  (void)for_good;
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
  pilfer_model_switch(&threads_[cur_].sp, sched_sp_);
#else
  swapcontext(contexts_[cur_].get(), &sched_ctx_);
#endif
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

bool checker::begin_op(const std::source_location&) {
  mthread& th = threads_[cur_];
  if (th.events.size() > opt_.max_steps)
    PILFER_MODEL_FAIL("livelock", "thread t" + std::to_string(cur_) + " exceeded max_steps=" + std::to_string(opt_.max_steps) +
                         " events without finishing (spinning without progress?)");
  switch_to_scheduler();
  return live();
}

void checker::cut_here() {
  pruned_ = true;
  over_ = true;
  switch_to_scheduler();
}

void checker::record_failure(std::string kind, std::string message) {
  if (!live()) {
    std::fprintf(stderr, "pilfer model: %s outside an execution: %s\n", kind.c_str(), message.c_str());
    std::abort();
  }
  failed_ = true;
  over_ = true;
  fail_kind_ = std::move(kind);
  fail_msg_ = std::move(message);
}

void checker::block() {
  if (revisit_ && live()) {  // revisit mode: the thread stays stopped, the others go on (GenMC)
    ++rv_assume_blocked_;
    strand();
  }
  if (live()) blocked_ = true;  // (finishing: the thread just cannot go on)
  over_ = true;
  strand();
}

void checker::abandon() {
  over_ = true;
  strand();
}

void checker::strand() {
  threads_[cur_].status = tstatus::stranded;
  switch_to_scheduler(true);
  std::abort();  // a stranded fiber is never resumed
}

}  // namespace pilfer::model::engine
