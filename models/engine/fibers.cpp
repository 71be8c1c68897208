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

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

namespace pilfer::model::engine {

// ---- fiber stacks and their guard pages ----
// Each stack is options::stack_size usable bytes. Outside ASan (whose own reports cover an
// overflow) 16 PROT_NONE pages sit below them: a thread that overflows its stack faults there,
// or, with a frame larger than the guard (a 1 MiB local), wherever that frame's first access
// lands with the stack pointer below the running fiber's stack. The SIGSEGV handler, on its own
// stack, writes one line naming the thread and options::stack_size before the fault is taken
// again with the previous disposition (the process dies as it would have, now with a reason). The pages are made accessible again before the
// stacks are freed, at the end of check() (release_stack_guards(), public_api.cpp).
namespace {

constexpr std::size_t guard_pages = 16;

std::size_t page_size() noexcept {
  static const std::size_t p = [] {
    const long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? static_cast<std::size_t>(v) : std::size_t{4096};
  }();
  return p;
}

#if !defined(PILFER_MODEL_ASAN)
constexpr bool use_guard_pages = true;
#else
constexpr bool use_guard_pages = false;
#endif

struct stack_guard {
  std::uintptr_t begin, end;  // the PROT_NONE pages
  std::uint32_t thread;       // the slot: the thread index that runs on this stack
};
// (a fixed array: the handler reads it, and nothing in it is allocated)
constexpr std::size_t max_guards = max_threads + 1;
stack_guard g_guards[max_guards];
std::size_t g_guard_count = 0;
std::size_t g_guarded_stack_size = 0;
bool g_handler_installed = false;
struct sigaction g_previous_segv {};
stack_t g_previous_alt_stack{};
alignas(16) char g_alt_stack[64 * 1024];

/// Appends the decimal digits of v to buf at n (async-signal-safe).
std::size_t put_number(char* buf, std::size_t n, std::size_t v) noexcept {
  char digits[24];
  std::size_t k = 0;
  do {
    digits[k++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (k > 0) buf[n++] = digits[--k];
  return n;
}
std::size_t put_text(char* buf, std::size_t n, const char* s) noexcept {
  while (*s != '\0') buf[n++] = *s++;
  return n;
}

/// The stack slot of the fiber running now (none: the scheduler): a frame larger than the guard
/// pages moves the stack pointer below them, and the fault lands wherever its first access does.
std::uint32_t volatile g_running_slot = none;

/// The stack pointer at the fault, 0 where this platform's context is not read.
std::uintptr_t fault_stack_pointer(void* context) noexcept {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.sp);
#else
  (void)uc;
  return 0;
#endif
}

void on_segv(int, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::uintptr_t sp = fault_stack_pointer(context);
  const std::uint32_t running = g_running_slot;
  for (std::size_t k = 0; k < g_guard_count; ++k) {
    const bool in_guard = at >= g_guards[k].begin && at < g_guards[k].end;
    const bool below_running_stack = g_guards[k].thread == running && sp != 0 && sp < g_guards[k].end;
    if (!in_guard && !below_running_stack) continue;
    char buf[256];
    std::size_t n = put_text(buf, 0, "pilfer model: modelled thread t");
    n = put_number(buf, n, g_guards[k].thread);
    n = put_text(buf, n, " overflowed its fiber stack of ");
    n = put_number(buf, n, g_guarded_stack_size);
    n = put_text(buf, n, " bytes (options::stack_size; deep recursion or large locals need a larger one)\n");
    (void)!write(STDERR_FILENO, buf, n);
    break;
  }
  sigaction(SIGSEGV, &g_previous_segv, nullptr);  // the fault, taken again, goes where it went before
}

/// Makes the pages at the bottom of a fresh stack inaccessible and records them.
void guard_stack(char* alloc, std::size_t stack_size, std::uint32_t thread) noexcept {
  const std::size_t page = page_size();
  const std::uintptr_t guard = (reinterpret_cast<std::uintptr_t>(alloc) + page - 1) & ~(page - 1);
  const std::size_t bytes = guard_pages * page;
  if (g_guard_count >= max_guards || mprotect(reinterpret_cast<void*>(guard), bytes, PROT_NONE) != 0) return;
  g_guards[g_guard_count++] = stack_guard{guard, guard + bytes, thread};
  g_guarded_stack_size = stack_size;
  if (g_handler_installed) return;
  stack_t alt{};
  alt.ss_sp = g_alt_stack;
  alt.ss_size = sizeof g_alt_stack;
  sigaltstack(&alt, &g_previous_alt_stack);
  struct sigaction act {};
  act.sa_sigaction = on_segv;
  act.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&act.sa_mask);
  sigaction(SIGSEGV, &act, &g_previous_segv);
  g_handler_installed = true;
}

/// A stack's usable bytes: options::stack_size (at least min_stack_size: invalid_options), whole pages.
std::size_t stack_bytes(std::size_t requested) noexcept {
  const std::size_t page = page_size();
  return (std::max(requested, min_stack_size) + page - 1) & ~(page - 1);
}
/// What a stack allocates: its usable bytes, and room for the guard pages aligned below them.
std::size_t stack_alloc_bytes(std::size_t requested) noexcept {
  return stack_bytes(requested) + (use_guard_pages ? (guard_pages + 1) * page_size() : 0);
}
/// Where a stack's usable bytes begin (above its guard pages).
char* stack_begin(char* alloc) noexcept {
  if (!use_guard_pages) return alloc;
  const std::size_t page = page_size();
  const std::uintptr_t guard = (reinterpret_cast<std::uintptr_t>(alloc) + page - 1) & ~(page - 1);
  return reinterpret_cast<char*>(guard + guard_pages * page);
}

}  // namespace

void release_stack_guards() noexcept {
  for (std::size_t k = 0; k < g_guard_count; ++k)
    mprotect(reinterpret_cast<void*>(g_guards[k].begin), g_guards[k].end - g_guards[k].begin, PROT_READ | PROT_WRITE);
  g_guard_count = 0;
  if (!g_handler_installed) return;
  sigaction(SIGSEGV, &g_previous_segv, nullptr);
  sigaltstack(&g_previous_alt_stack, nullptr);
  g_handler_installed = false;
}

void checker::fiber_entry() {
  checker& c = *g;
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &c.sched_bottom_, &c.sched_size_);
#endif
  if (c.finishing_) ++c.finish_progress_;
  // An exception that leaves a modelled thread's code (here: its frames are unwound) is a
  // failure of its execution, not std::terminate: nothing above this frame would catch it.
  {
    std::string what;
    bool threw = false;
    try {
      if (c.cur_ == 0)
        c.main_body();
      else
        c.threads_[c.cur_].body->run();
    } catch (const std::exception& e) {
      threw = true;
      what = e.what();
    } catch (...) {
      threw = true;
      what = "(an exception not derived from std::exception)";
    }
    if (threw && c.live())
      c.record_failure("exception", (c.cur_ == 0 ? std::string("the main thread t0 (the scenario's constructor, before() or after())")
                                                 : "thread t" + std::to_string(c.cur_)) +
                                        " let an exception escape: " + what);
  }  // (`what` is gone before the thread ends: its frame is never resumed)
  c.finish_thread();
}

const char* const engine_source_file = std::source_location::current().file_name();

void checker::finish_thread() {
  mthread& th = threads_[cur_];
  if (live()) {
    event e = make_event(ek::finish, none, std::source_location::current());
    compute_views(e, th);
    const auto gid = add_event(e, none);
    commit(gid);
    for (auto& o : threads_)  // a spinner may be waiting for this thread to finish
      if (o.status == tstatus::yielded) o.status = tstatus::runnable;
    // A thread may not end owning a mutex ([thread.mutex.class]: undefined); the thread waiting for
    // it would otherwise be the only one reported (a deadlock).
    for (std::uint32_t id = 0; id < locs_.size() && !failed_; ++id)
      if (locs_[id].kind == location::mutex_loc && locs_[id].alive && locs_[id].owner == cur_)
        record_failure("mutex misuse", "t" + std::to_string(cur_) + " finished while holding mutex " + location_name(id) +
                                           " (a thread may not end owning a mutex)");
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
  if (!scenario_) PILFER_MODEL_FAIL("model error", "the scenario factory returned no scenario (a null pointer)");
  if (live() && scenario_->threads() > max_threads - 1)
    PILFER_MODEL_FAIL("model error", "the scenario has " + std::to_string(scenario_->threads()) + " threads; at most " +
                                         std::to_string(max_threads - 1) + " (the checker runs " +
                                         std::to_string(max_threads) + " threads, its main thread included)");
  if (live()) start_symmetry(*scenario_);
  scenario_->before();
  scenario* s = scenario_.get();
  main_threads_.clear();
  main_threads_.reserve(max_threads);  // a member: this frame may be stranded
  if (live())
    for (unsigned i = 0; i < s->threads(); ++i) {
      spawning_body_ = i;  // (a symmetric group's member is labeled by its body: symmetry.cpp)
      main_threads_.emplace_back([s, i] { s->thread(i); }, std::source_location::current());
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
    const std::size_t usable = stack_bytes(opt_.stack_size);
    const std::size_t slot = t;
    while (stacks_.size() <= slot) {
      // (not zeroed: a stack's pages are touched as its frames reach them, not all up front)
      stacks_.push_back(std::make_unique_for_overwrite<char[]>(stack_alloc_bytes(opt_.stack_size)));
      if (use_guard_pages) guard_stack(stacks_.back().get(), usable, static_cast<std::uint32_t>(stacks_.size() - 1));
    }
#if defined(PILFER_MODEL_ASAN)
    // a stranded fiber of an earlier execution left its frames' poison behind
    __asan_unpoison_memory_region(stack_begin(stacks_[slot].get()), usable);
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
    auto top = reinterpret_cast<std::uintptr_t>(stack_begin(stacks_[slot].get()) + usable) & ~std::uintptr_t{15};
    auto* sp = reinterpret_cast<void**>(top);
    *--sp = nullptr;                                                  // fake return address
    *--sp = reinterpret_cast<void*>(&checker::fiber_entry);           // `ret` target
    for (int i = 0; i < 6; ++i) *--sp = nullptr;                      // rbp rbx r12-r15
    th.sp = sp;
#else
    while (contexts_.size() <= slot) contexts_.push_back(std::make_unique<ucontext_t>());
    ucontext_t& ctx = *contexts_[slot];
    getcontext(&ctx);
    ctx.uc_stack.ss_sp = stack_begin(stacks_[slot].get());
    ctx.uc_stack.ss_size = usable;
    ctx.uc_link = &sched_ctx_;
    makecontext(&ctx, &checker::fiber_entry, 0);
#endif
  }
#if defined(PILFER_MODEL_ASAN)
  __sanitizer_start_switch_fiber(&fake_stack_, stack_begin(stacks_[t].get()), stack_bytes(opt_.stack_size));
#endif
#if defined(PILFER_MODEL_ASM_SWITCH)
  g_running_slot = t;
  pilfer_model_switch(&sched_sp_, th.sp);
#else
  g_running_slot = t;
  swapcontext(&sched_ctx_, contexts_[t].get());
#endif
  g_running_slot = none;
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
  // (a location's creation is an event of its creator, its initialisation, but not a step: a
  // scenario or litmus test that makes many locations is not spinning)
  const std::size_t steps = th.events.size() - std::min<std::size_t>(th.locs, th.events.size());
  if (steps > opt_.max_steps)
    PILFER_MODEL_FAIL("livelock", "thread t" + std::to_string(cur_) + " exceeded max_steps=" + std::to_string(opt_.max_steps) +
                         " events without finishing (spinning without progress? a spin loop needs Sync::spin_hint() "
                         "or yield() in its body, or await() / assume() instead; a long loop that ends needs a larger "
                         "options::max_steps)");
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
