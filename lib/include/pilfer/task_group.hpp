// pilfer/task_group.hpp — basic_task_group: tasks waited for together.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "pilfer/detail/backoff.hpp"
#include "pilfer/pool.hpp"

namespace pilfer {

/// A set of tasks waited for together. run() from any thread; wait() on a
/// worker of the pool runs the group's tasks still on top of its own deque,
/// then claims and runs every task of the group that has not started,
/// wherever it is queued (a task with affinity to another worker is left to
/// that worker), then runs only tasks descending from the group's and
/// sleeps while they run elsewhere (a spare keeps the pool busy); elsewhere
/// it blocks. Any number of threads may wait at once: all are released.
/// wait() returns once the group has been empty at some moment after it began:
/// every task run() before it began has finished, and so has every task a
/// concurrent run() counted before that moment (overlapping rounds merge, as
/// SPEC POOL-11 says; such a task must not wait for this wait), and it rethrows the first
/// exception (task_cancelled for cancelled tasks) in every waiter; the kept
/// exception is forgotten when run() starts a new round while no wait is in
/// progress, so a wait that overlaps rounds may rethrow an earlier round's.
/// A wait on a worker may also claim and run a task a concurrent run() added
/// after it began: that task must not wait for this wait's return.
/// The destructor waits; an exception nobody collected goes to the pool's
/// on_uncaught handler.
///
/// Completion is one CAS on `state_` (count of unfinished tasks, a waiter
/// bit, a count of completers still notifying); the first exception is kept
/// by whoever wins `error_claimed_`.
///
/// The member list (for claims; it owns the tasks, detail::group_member):
/// run() pushes onto `members_` with a CAS and takes no lock. Waits claim and
/// free under `members_mu_`, which orders them among themselves; they unlink
/// an inner node with a plain write (only lock holders follow or write a
/// listed node's `next`) and the head with a CAS (a push may have moved it).
/// Started members a wait cannot free yet (running elsewhere, or a claimed
/// task whose tombstone is still queued) move to `started_` (lock holders
/// only), so claims do not walk them again. Errors: the mutex is taken only
/// when a task of the group failed (`error_claimed_`).
///
/// Who frees the finished members (invariant F: a member is freed exactly
/// once, by a thread that alone reads the lists at that moment, after its
/// run and its queue entry are over):
/// - a wait frees them under `members_mu_`: a claim frees those it walks
///   past, and the prune after the group is done runs only from the
///   group's second wait on (`waited_`), whether or not that wait found the
///   group done at once: the usual group is waited once and then destroyed,
///   its first round is left to the destructor, and a wait that claims
///   nothing takes no lock. A group reused round after round holds its
///   first round's finished members until its second wait; every later
///   wait frees all that finished (bar members whose claimed entry is still
///   queued: a later wait frees them), so it holds at most one round;
/// - the destructor frees whatever is left without the lock: the count is 0
///   (every task finished) and no waiter is inside (`inside_one` drained,
///   [pool.G9] acquire after each waiter's release), run() may not race the
///   destructor, and a queue entry touches only its own member's status —
///   so nobody else reads or writes a list or a `next` link any more.
template <class Sync>
class basic_task_group {
  using member = detail::group_member<Sync>;

 public:
  explicit basic_task_group(basic_pool<Sync>& p) noexcept
      : pool_(p),
        creator_(detail::pool_access<Sync>::scoped_creator(p, this)),
        asym_(detail::pool_access<Sync>::asymmetric(p)) {}
  basic_task_group(const basic_task_group&) = delete;
  basic_task_group& operator=(const basic_task_group&) = delete;
  ~basic_task_group() {
    // run() may not race the destructor: the first crossing after `seen` ends
    // the group's last round for good.
    if (const std::uint64_t seen = state_.load(PILFER_SITE("pool.G2", acquire)); !done(seen)) wait_all(seen);
    wait_for_waiters_to_leave();
    free_members();
    if (std::exception_ptr e = uncollected_error()) detail::pool_access<Sync>::sink(pool_).report(std::move(e));
  }

  /// Add a task (any thread). The group must outlive this call, not only the
  /// task: a wait may claim, run and finish the task, and return, while run()
  /// is still inside (it wakes sleeping waits after listing the task).
  template <class F>
  void run(F&& f, task_options o = {}) {
    using T = detail::group_task<std::decay_t<F>, Sync>;
    using access = detail::pool_access<Sync>;
    const unsigned affinity = o.affinity.value_or(~0u);
    T* t = detail::task_memory<Sync>::template make<T>(std::forward<F>(f), this, creator_);
    t->affinity = affinity;
    // Refused (pool closed, bad affinity): throws before anything is counted
    // or listed; the task never runs (POOL-12).
    typename access::worker* w;
    try {
      w = access::admit(pool_, o);
    } catch (...) {
      detail::task_memory<Sync>::destroy(t);
      throw;
    }
    // pool_mutation::forget_before_count (stress evidence): the old order, a
    // forget when the group looks done and no wait is inside, then the count:
    // a wait that begins between the two finds the group done and nothing kept.
    if constexpr (mutation == detail::pool_mutation::forget_before_count) {
      if ((state_.load(PILFER_SITE("pool.G2", acquire)) & (count_mask | inside_mask)) == 0 &&
          error_claimed_.load(PILFER_SITE("pool.G4", relaxed)) != 0)
        forget_collected_error();
    }
    // Counted before it is listed: a wait may claim, run and complete it as
    // soon as it is listed, and its decrement must not meet a count that
    // lacks it (a wait would return while another task still runs).
    // [pool.G1] relaxed: ordered before the task's decrement by the member
    // list's push (release; a claim acquires it) or the queue's publication.
    const std::uint64_t before = state_.fetch_add(1, PILFER_SITE("pool.G1", relaxed));
    if ((before & count_mask) >= max_unfinished) refuse_past_limit(t);
    // A new round: the group was done and no wait was inside at the count
    // above (one RMW: a wait that begins later waits for this task, one that
    // began earlier is still inside): forget a collected exception.
    // [pool.G4] relaxed: 0 = no task failed since the last forget; a failure
    // whose collecting wait happens-before this run() is seen (coherence);
    // a missed one is forgotten by a later run() (the rounds merge).
    if constexpr (mutation != detail::pool_mutation::forget_before_count) {
      if ((before & (count_mask | inside_mask)) == 0 && error_claimed_.load(PILFER_SITE("pool.G4", relaxed)) != 0)
        forget_collected_error();
    }
    // After the count: its RMW has just brought the group's line here, so the
    // read of claims_begun_ beside it costs no transfer of its own.
    t->set_dequeue(asym_, claims_begun());
    push_member(t);
    wake_blocked_claimers();
    try {
      access::place(pool_, w, t, o);
    } catch (...) {
      // Not queued (out of memory). A wait of this group may have claimed it
      // from the list meanwhile: then it runs there and run() has succeeded
      // after all. Otherwise it never runs: run() throws.
      if ((t->take_entry() & member::started_bit) != 0) return;
      t->f.reset();
      t->mark_finished(true);
      complete(std::exception_ptr{});
      throw;
    }
  }

  /// Returns once the group has been empty (no unfinished task) at some moment
  /// after this wait began: every task run() so far has finished, and so has
  /// every task a concurrent run() counted before that moment (overlapping
  /// rounds merge; such a task must not wait for this wait's return);
  /// rethrows the kept exception. Any thread, any number at once. The group may be destroyed
  /// as soon as one waiter returned, while other threads are still inside
  /// wait(): every wait counts itself in `state_` (`inside_one`) with its
  /// first touch of the group and out with its last, and the destructor
  /// waits for that count to drain ("waiters inside" below). A call whose
  /// first touch may come after the destruction began races with the
  /// destructor, as for any object: the destroyer must know the other
  /// waits have begun (for instance, seen blocked).
  /// Every wait of the round rethrows one exception object, which the group
  /// keeps until it is destroyed or a new round forgets it. Its reference count
  /// lives in libstdc++, which ThreadSanitizer does not instrument: a read of it
  /// (e.g. what()) on a thread that is not ordered before the group's drop is
  /// reported against the free, as for a std::shared_future whose waiters drop
  /// their futures before reading the exception. task_handle::get() and
  /// on_uncaught hand over the last reference instead.
  void wait() {
    const std::uint64_t seen = enter();
    if (!done(seen)) wait_all(seen);
    // Also when the group was done at once: a group reused in rounds whose
    // waits all find it done frees each round at the next wait ("who frees").
    if (waited_before()) prune();
    std::exception_ptr e;
    if constexpr (mutation == detail::pool_mutation::uncounted_error_read) {
      leave();  // a read of the group after the last counted touch: the window invariant W closes
      e = take_error();
    } else {
      e = take_error();
      leave();
    }
    if (e) std::rethrow_exception(e);
  }

 private:
  template <class, class>
  friend struct detail::group_task;
  friend struct detail::group_member<Sync>;
  friend struct detail::pool_access<Sync>;

  // Claims against dequeues without an RMW (detail::group_member, invariant E).
  /// run(): a member made from now on is born with the claim intent set.
  bool claims_begun() const noexcept { return claims_begun_.load(PILFER_SITE("pool.G12", relaxed)) != 0; }
  /// Under members_mu_, before a claim of a member whose intent is not yet
  /// announced: announce it on every listed member (one heavy fence then
  /// serves the group's later claims), then the heavy fence that orders each
  /// dequeue's light fence either before it (the claimer reads that
  /// `entry_taken`) or after it (that dequeue reads the intent and takes the
  /// RMW path).
  void announce_claims() noexcept {
    // [pool.G8] acquire: pairs with push_member's CAS.
    for (member* m = members_.load(PILFER_SITE("pool.G8", acquire)); m != nullptr; m = m->next.read()) m->announce_claim();
    claims_begun_.store(1, PILFER_SITE("pool.G12", relaxed));  // never reset
    if constexpr (mutation != detail::pool_mutation::unfenced_claim) Sync::fence_heavy(PILFER_SITE("pool.G12H", seq_cst));
  }

  // state_: | waiter bit | claimer bit | completers still notifying (11 bits) |
  //         | waits inside wait() (13 bits) | crossings (10 bits, wrapping) | unfinished tasks (28 bits) |
  // The waiter bit: some wait sleeps (on `state_`, or a claimer on `claim_epoch_`); the
  // claimer bit: a wait on a worker sleeps and would claim a member run() adds (invariant K).
  // A crossing is a completion that brings the count to 0: it also steps the
  // crossings field in the same CAS, so a wait tells "every task counted when
  // I began has finished" from the count alone being 0 now (a later run()
  // may have counted new tasks since).
  static constexpr std::uint64_t waiter_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t claimer_bit = std::uint64_t{1} << 62;
  static constexpr std::uint64_t notifier_one = std::uint64_t{1} << 51;
  static constexpr std::uint64_t notifier_mask = claimer_bit - notifier_one;
  static constexpr std::uint64_t inside_one = std::uint64_t{1} << 38;
  static constexpr std::uint64_t inside_mask = notifier_one - inside_one;
  static constexpr std::uint64_t crossing_one = std::uint64_t{1} << 28;
  static constexpr std::uint64_t crossing_mask = inside_one - crossing_one;
  static constexpr std::uint64_t count_mask = crossing_one - 1;
  /// run() refuses a task past this many unfinished ones (the count's field
  /// keeps the rest as headroom for run()s racing the check).
  static constexpr std::uint64_t max_unfinished = count_mask >> 1;

  static constexpr detail::pool_mutation mutation = detail::pool_mutation_of<Sync>();

  // Waiters inside wait() (protocol; tags pool.G2, pool.G9).
  // Invariant W: every access of a wait() to the group lies between that
  // wait's enter() (its first touch) and its leave() (its last); the
  // destructor frees nothing before its load of `state_` [pool.G9] reads
  // an inside count of 0, after its own wait_all().
  // Why it is enough: every write of `state_` is an RMW, so enter()s and
  // leave()s have one modification order with everything else. The value
  // the destructor's load reads counts every enter() before it in that
  // order whose leave() is not also before it; so reading 0 means each such
  // wait's leave() is before it, and the load (acquire) reads from the
  // release sequence headed by that leave() (release; later writes are
  // RMWs): the wait's reads of the lists, the error and the flags happen
  // before the free. The wait that finds the group done at once is counted
  // like the others: it too reads `error_claimed_` and may prune the lists.
  // (pool_mutation::uncounted_error_read, for the model's mutant table,
  // reads the error after leave(): the destroyer frees under that read.)
  // Not covered, and not coverable: a wait whose enter() comes after the
  // destructor's load is a call on a destroyed object (the caller's race).

  /// A waiter's first touch of the group: count it inside, and return the
  /// state it found (the done test).
  std::uint64_t enter() noexcept {
    // [pool.G2] acquire: doubles as the done test (done(seen)): when it
    // reads count 0, it reads from the release sequence of the completers'
    // acq_rel CAS (every write of state_ is an RMW), so the tasks' effects
    // and the kept exception are visible. Counting in needs no order of its
    // own [pool.G9]: only the destructor reads the count, after its own
    // wait saw the group done; RMWs on state_ are totally ordered.
    const std::uint64_t seen = state_.fetch_add(inside_one, PILFER_SITE("pool.G2", acquire));
    if ((seen & inside_mask) == inside_mask) too_many_waiters();  // the count wrapped into the notifiers'
    return seen;
  }
  /// More waits of one group in progress at once than its 13-bit count holds (SPEC POOL-11): the
  /// state word is already wrong, so no wait of this group could be trusted to return.
  [[noreturn]] static void too_many_waiters() noexcept {
    std::fputs("pilfer task_group: more than 8191 waits of one group in progress at once; terminating\n", stderr);
    std::fflush(stderr);
    std::terminate();
  }
  /// A waiter's last touch of the group.
  void leave() noexcept {
    // [pool.G9] release: the waiter's reads of the group (list, error)
    // happen before the destructor's free (acquire load below).
    state_.fetch_sub(inside_one, PILFER_SITE("pool.G9", release));
  }
  /// Destructor: other waiters woken by the same completion, or that found
  /// the group done, are still leaving (running, not blocked): wait until
  /// the last one is out.
  void wait_for_waiters_to_leave() noexcept {
    detail::backoff<Sync> b;
    // [pool.G9] acquire: pairs with leave().
    while ((state_.load(PILFER_SITE("pool.G9", acquire)) & inside_mask) != 0) b.snooze();
  }

  /// Every task finished and no completer still notifies, in state `v`.
  static bool done(std::uint64_t v) noexcept { return (v & count_mask) == 0 && (v & notifier_mask) == 0; }

  /// State `v` is past the end of every task counted in the state `seen` a
  /// wait began with: none was counted (the wait only waits for notifiers
  /// to leave), the count is 0, or a crossing came since (its crossings
  /// field differs; it wraps after 1024, and a wait that misses exactly
  /// 1024k crossings waits for the next one).
  static bool crossed(std::uint64_t v, std::uint64_t seen) noexcept {
    if constexpr (mutation == detail::pool_mutation::wait_on_live_count) {
      // The old test (stress evidence): the live count only, so a wait sleeps
      // through a round a later run() started after its own round ended.
      (void)seen;
      return (v & count_mask) == 0;
    } else {
      return (seen & count_mask) == 0 || (v & count_mask) == 0 || ((v ^ seen) & crossing_mask) != 0;
    }
  }

  // [pool.G2] acquire: pairs with the completers' acq_rel CAS: the tasks'
  // effects (and the kept exception) are visible once a crossing is read.
  bool done_since(std::uint64_t seen) const noexcept {
    const std::uint64_t v = state_.load(PILFER_SITE("pool.G2", acquire));
    return crossed(v, seen) && (v & notifier_mask) == 0;
  }

  /// After wait_all(): every completer is done with error_ (count 0 read
  /// with acquire). Every waiter gets the error (a copy, under the mutex:
  /// several threads may wait at once); it is forgotten when run() starts a
  /// new round.
  std::exception_ptr take_error() {
    // [pool.G4] relaxed: read after the count's 0 (acquire), which follows
    // every completer's exchange: 0 = no task of this round failed.
    if (error_claimed_.load(PILFER_SITE("pool.G4", relaxed)) == 0) return nullptr;
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    std::exception_ptr e = error_.read();
    if (e) collected_.write() = true;
    return e;
  }

  std::exception_ptr uncollected_error() {
    if (error_claimed_.load(PILFER_SITE("pool.G4", relaxed)) == 0) return nullptr;  // as take_error()
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    return collected_.read() ? nullptr : std::exchange(error_.write(), nullptr);  // the reporter's last reference
  }

  /// A new round after a collected error (run() found the group done and
  /// no wait inside): forget it. error_ is written and read under this
  /// mutex. Not when it is no longer collected: a task of the new round
  /// (counted by a concurrent run()) failed meanwhile and its exception
  /// replaced the collected one (keep_error).
  void forget_collected_error() {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    if (collected_.read()) {
      error_.write() = nullptr;
      error_claimed_.store(0, PILFER_SITE("pool.G4", relaxed));
      collected_.write() = false;
    }
  }

  void push_member(member* t) noexcept {
    // [pool.G8] release: a lock holder that reads the new head (acquire)
    // reads the task's construction and its `next`. [pool.G13] seq_cst on
    // success: invariant K's store (the load of `state_` follows it in S).
    member* head = members_.load(PILFER_SITE("pool.G8", relaxed));
    do {
      t->next.write() = head;
    } while (!members_.compare_exchange_weak(head, t, PILFER_SITE("pool.G13", seq_cst), PILFER_SITE("pool.G8", relaxed)));
  }

  // Waits that sleep on a worker while run() adds members (protocol; tags pool.G13, pool.G14).
  // Invariant K: a wait on a worker that sleeps never sleeps through a member run() listed
  // that it may claim. Such a wait sleeps as a claimer: it sets the claimer bit with an
  // RMW [pool.G13] seq_cst, then reads the member list [pool.G13] seq_cst and returns to its
  // claim loop if a member there is claimable by its worker; else it sleeps on
  // `claim_epoch_`, read before the bit was set. run() lists the member with a CAS
  // [pool.G13] seq_cst, then reads `state_` [pool.G13] seq_cst: the four accesses are in S,
  // so either the waiter's read of the list comes after the push (it sees the member) or
  // run()'s read of `state_` comes after the bit (run() steps the epoch and wakes it). A
  // crossing that finds the claimer bit wakes claimers the same way. The epoch read comes
  // before the bit's RMW, which synchronizes with the waker's read of it, so the step is
  // seen. Sleeping on a word of its own, a claimer cannot miss a wake-up when another wait
  // sets the bit again (the same value `state_` had: an ABA).
  // Without it (pool_mutation::unwoken_claimer): a wait on worker k sleeps while a task of
  // the group runs elsewhere; that task run()s a member with affinity k, which only worker k
  // may run: nobody ever runs it.
  void wake_blocked_claimers() noexcept {
    if constexpr (mutation == detail::pool_mutation::unwoken_claimer) return;
    // [pool.G13] seq_cst: invariant K (a plain load on x86, as the CAS before it is locked).
    if ((state_.load(PILFER_SITE("pool.G13", seq_cst)) & claimer_bit) != 0) wake_claimers();
  }
  [[gnu::cold, gnu::noinline]] void wake_claimers() noexcept {
    // [pool.G14] relaxed: the bit is only a hint that a claimer sleeps (its wake-up is ordered
    // by invariant K's seq_cst pair and the epoch); cleared so that later run()s pay no wake-up
    // until a claimer sleeps again.
    state_.fetch_and(~claimer_bit, PILFER_SITE("pool.G14", relaxed));
    step_claim_epoch();
  }
  void step_claim_epoch() noexcept {
    // [pool.G14] relaxed: only its value matters (the sleeper compares it); what the woken
    // claimer then reads it reads under members_mu_ from the list (pool.G8).
    claim_epoch_.fetch_add(1, PILFER_SITE("pool.G14", relaxed));
    claim_epoch_.notify_all();
  }

  /// A claimer about to sleep, after setting the claimer bit: a member of the list that has not
  /// started and that worker `k` may run (a hint for the claim loop, which rechecks).
  bool has_claimable(unsigned k) noexcept {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    // [pool.G13] seq_cst: invariant K's load (after the claimer bit in S).
    for (member* m = members_.load(PILFER_SITE("pool.G13", seq_cst)); m != nullptr; m = m->next.read()) {
      if (!m->started() && may_run(m, k)) return true;
    }
    return false;
  }

  /// Worker `k` may run member `m` (no affinity, or affinity to k).
  static bool may_run(const member* m, unsigned k) noexcept { return m->affinity == ~0u || m->affinity == k; }

  /// Under members_mu_: unlink `m` from `members_`; `prev` is the node before
  /// it (nullptr: it was the head when read). A failed head CAS means pushes
  /// came in front of it: its predecessor is then one of them. Returns the
  /// node now before m's successor (nullptr: the successor is the head), so
  /// a walk goes on in constant time per node however many pushes came in.
  member* unlink(member* prev, member* m) noexcept {
    if (prev == nullptr) {
      member* expected = m;
      // [pool.G8] acquire on failure: the pushed nodes' `next` links are read below.
      if (members_.compare_exchange_strong(expected, m->next.read(), PILFER_SITE("pool.G8", acq_rel),
                                           PILFER_SITE("pool.G8", acquire))) {
        return nullptr;
      }
      prev = expected;
      while (prev->next.read() != m) prev = prev->next.read();
    }
    prev->next.write() = m->next.read();
    return prev;
  }

  /// Under members_mu_: free the members of `started_` that are reclaimable.
  void free_reclaimable_started() noexcept {
    member* prev = nullptr;
    member* m = started_.read();
    while (m != nullptr) {
      member* const after = m->next.read();
      if (m->reclaimable()) {
        (prev != nullptr ? prev->next.write() : started_.write()) = after;
        m->fn(m, detail::task_op::destroy, nullptr);
      } else {
        prev = m;
      }
      m = after;
    }
  }

  /// Under members_mu_: move a started member off `members_` (free it if
  /// reclaimable, else onto `started_`). Returns unlink()'s predecessor.
  member* retire(member* prev, member* m) noexcept {
    prev = unlink(prev, m);
    if (m->reclaimable()) {
      m->fn(m, detail::task_op::destroy, nullptr);
    } else {
      m->next.write() = started_.read();
      started_.write() = m;
    }
    return prev;
  }

  /// Under members_mu_: walk `members_`, retiring the started members. With
  /// a `claimant` worker, stop at the first member that has not started and
  /// that worker may run (no affinity, or affinity to it), claim it, retire
  /// it too (the list keeps owning it) and return it.
  member* sweep(std::optional<unsigned> claimant) noexcept {
    // [pool.G8] acquire: pairs with push_member's CAS.
    member* prev = nullptr;
    member* m = members_.load(PILFER_SITE("pool.G8", acquire));
    while (m != nullptr) {
      member* const after = m->next.read();
      if (m->started()) {
        prev = retire(prev, m);
      } else if (claimant && may_run(m, *claimant)) {
        if (!m->claim_announced()) announce_claims();  // asymmetric fences only (set_dequeue)
        if (m->taken_before_claims()) {  // dequeued without an RMW (invariant E)
          prev = retire(prev, m);
        } else if (m->claim()) {
          retire(prev, m);
          return m;
        } else {
          prev = m;  // the dequeue's RMW won: retired by a later walk
        }
      } else {
        prev = m;
      }
      m = after;
    }
    return nullptr;
  }

  /// Claim one member that has not started and that `worker_index` may run;
  /// started members met on the way are retired.
  member* claim_member(unsigned worker_index) {
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    return sweep(worker_index);
  }

  /// A wait, after the group was done: has a wait got this far before?
  /// (The first one only records it: see "who frees" above.)
  bool waited_before() noexcept {
    // [pool.G10] relaxed: decides only when finished members are freed,
    // never whether; two first waits that both miss the other's store both
    // leave the round to a later wait or the destructor.
    if (waited_.load(PILFER_SITE("pool.G10", relaxed))) return true;
    waited_.store(true, PILFER_SITE("pool.G10", relaxed));
    return false;
  }

  /// A wait: retire the started members and free what is reclaimable.
  void prune() noexcept {
    // Nothing listed: no lock.
    if (members_.load(PILFER_SITE("pool.G8", acquire)) == nullptr) return;
    std::lock_guard<typename Sync::mutex> g(members_mu_);
    sweep(std::nullopt);
    free_reclaimable_started();
  }

  /// Destruction (invariant F: this thread alone reads the lists now, no
  /// lock): every task finished; free each member whose queue entry is gone,
  /// orphan the rest to their still-queued tombstones.
  void free_members() noexcept {
    // [pool.G8] acquire: pairs with push_member's CAS of a run() on another
    // thread (also ordered before this by the count's 0, [pool.G2]).
    free_or_orphan(members_.load(PILFER_SITE("pool.G8", acquire)));
    free_or_orphan(started_.read());
  }

  static void free_or_orphan(member* m) noexcept {
    while (m != nullptr) {
      member* const after = m->next.read();
      if (m->reclaimable()) {
        m->fn(m, detail::task_op::destroy, nullptr);
      } else {
        m->orphan();
      }
      m = after;
    }
  }

  /// Sleep until the count is 0 (any thread, any number of them). The
  /// completer that brings the count to 0 while waiter_bit is set clears the
  /// bit and counts itself as notifying in the same CAS, notifies, and
  /// uncounts itself as its very last touch of the group; a waiter returns
  /// only once no completer is notifying.
  void block(std::uint64_t seen) noexcept {
    // [pool.G3] acq_rel: announce the sleeper; the completers' CAS reads it.
    settle(seen, state_.fetch_or(waiter_bit, PILFER_SITE("pool.G3", acq_rel)) | waiter_bit);
  }

  /// block() for a wait on worker `k` (invariant K): sleep until the count is 0 as block()
  /// does, or return early when run() may have listed a member `k` could claim (the caller
  /// claims, and comes back).
  void block_claimer(std::uint64_t seen, unsigned k) noexcept {
    // [pool.G14] relaxed: read before the bit's RMW below (invariant K).
    const std::uint32_t epoch = claim_epoch_.load(PILFER_SITE("pool.G14", relaxed));
    // [pool.G13] seq_cst: invariant K's RMW (also [pool.G3]'s announcement of a sleeper).
    const std::uint64_t v = state_.fetch_or(waiter_bit | claimer_bit, PILFER_SITE("pool.G13", seq_cst)) | waiter_bit;
    if (crossed(v, seen)) {
      settle(seen, v);
      return;
    }
    if (has_claimable(k)) return;
    // [pool.G14] relaxed: a step after `epoch` (a run() or a crossing since the bit) ends it.
    claim_epoch_.wait(epoch, PILFER_SITE("pool.G14", relaxed));
  }

  /// block()'s sleep on `state_`, from the state `v` its announcement left.
  void settle(std::uint64_t seen, std::uint64_t v) noexcept {
    detail::backoff<Sync> b;
    for (;;) {
      // A crossing came since the wait began (or since we set the bit: the
      // bit is cleared only by a crossing; another wait may set it again,
      // which the crossings field sees through).
      if (crossed(v, seen) || (v & waiter_bit) == 0) {
        if ((v & notifier_mask) == 0) return;
        b.snooze();  // a completer between its CAS and its last touch
      } else {
        state_.wait(v, PILFER_SITE("pool.G2", acquire));
      }
      v = state_.load(PILFER_SITE("pool.G2", acquire));
    }
  }

  /// Until a crossing since `seen` (the state the wait began with): the count
  /// reached 0 after the wait began, so every task counted in `seen` has
  /// finished, and so has every task a concurrent run() counted before that.
  void wait_all(std::uint64_t seen) {
    if (done_since(seen)) return;
    using access = detail::pool_access<Sync>;
    if (auto* w = access::current(pool_)) {
      const unsigned k = w->index;
      access::wait_group(pool_, *w, this, [this, seen] { return done_since(seen); },
                         [this, seen, k] { block_claimer(seen, k); });
    } else if (!detail::poll_before_blocking<Sync>([this, seen] { return done_since(seen); })) {
      block(seen);
    }
  }

  /// complete()'s error path, out of line: the common path stays small.
  [[gnu::cold, gnu::noinline]] void keep_error(std::exception_ptr&& e) noexcept {
    // [pool.G4] relaxed: error_ is written under the mutex below and
    // published by complete()'s CAS (release), read after a waiter's
    // acquire of the crossing.
    error_claimed_.store(1, PILFER_SITE("pool.G4", relaxed));
    // Under the mutex: a wait that began between rounds may read error_
    // (take_error, under the mutex) while this task of a new round fails;
    // the error path alone pays for the lock. The kept exception is the
    // first one not yet collected: a later one of the same round is
    // dropped (POOL-10: waits rethrow one of them), but one that comes
    // after the kept one was collected replaces it — a run() that found a
    // wait in progress did not forget the collected one, and this one
    // would otherwise reach nobody. One of a later round while an earlier
    // round's is kept and not yet collected goes to on_uncaught when a wait
    // is inside (run() did not forget): the group keeps one exception, and
    // that wait may be one of the earlier round, which returns with the
    // earlier exception without waiting for this task. With no wait inside,
    // nobody has seen the kept one and every wait that begins from now on
    // covers this task too: the rounds merge and this one is dropped like a
    // second exception of one round (POOL-10: a wait rethrows one of them).
    // Without that, tasks that fail as fast as run() adds them (cancelled by
    // shutdown, each ending a round before the next run()) sent all but the
    // first to on_uncaught.
    // The round: the crossings field while this task is still counted
    // (no crossing can come before its own decrement below). [pool.G2]
    // relaxed: the load is after the task's count in modification order
    // (its run happens after its run(), coherence). A wait that enters
    // later in that order saw the crossing that ended the kept exception's
    // round, so it waits for this task's round as well.
    const std::uint64_t now = state_.load(PILFER_SITE("pool.G2", relaxed));
    const std::uint64_t round = now & crossing_mask;
    const bool wait_inside = (now & inside_mask) != 0;
    std::exception_ptr later_round;
    {
      std::lock_guard<typename Sync::mutex> g(members_mu_);
      if (!error_.read() || collected_.read()) {
        error_.write() = std::move(e);
        error_round_.write() = round;
        collected_.write() = false;
      } else if (error_round_.read() != round && wait_inside) {
        later_round = std::move(e);
      }
    }
    if (later_round) detail::pool_access<Sync>::sink(pool_).report(std::move(later_round));
  }

  /// run() past max_unfinished: undo the count, free the task, throw.
  template <class T>
  [[gnu::cold, gnu::noinline]] void refuse_past_limit(T* t) {
    // [pool.G1] relaxed: undoes run()'s count; the count stays far from 0.
    state_.fetch_sub(1, PILFER_SITE("pool.G1", relaxed));
    detail::task_memory<Sync>::destroy(t);
    throw std::length_error("pilfer task_group: more than 134217727 unfinished tasks in one group");
  }

  // Called by a finished or cancelled group_task after it destroyed its callable. `e`: its
  // exception, or null (taken by reference: the common no-error path moves nothing). `n`:
  // the number of tasks finishing, more than 1 for a worker's deferred completions (pool.hpp,
  // invariant D; then `e` is null).
  void complete(std::exception_ptr&& e, std::uint64_t n = 1) noexcept {
    if (e) keep_error(std::move(e));
    // [pool.G2] acq_rel: release publishes the task's effects; acquire reads
    // the waiter bit. The last decrement with a waiter clears the bit and
    // counts this completer as notifying.
    std::uint64_t old = state_.load(PILFER_SITE("pool.G2", relaxed));
    std::uint64_t next;
    do {
      next = old - n;
      if ((next & count_mask) == 0) {
        // A crossing: step the crossings field (wrapping inside it).
        next = (next & ~crossing_mask) | ((next + crossing_one) & crossing_mask);
        if ((next & waiter_bit) != 0) next = (next & ~(waiter_bit | claimer_bit)) + notifier_one;
      }
    } while (!state_.compare_exchange_weak(old, next, PILFER_SITE("pool.G2", acq_rel), PILFER_SITE("pool.G2", relaxed)));
    if ((old & waiter_bit) != 0 && (next & waiter_bit) == 0) {
      state_.notify_all();
      if ((old & claimer_bit) != 0) step_claim_epoch();  // invariant K: claimers sleep on the epoch
      // [pool.G5] release: last touch of the group by this completer; a
      // waiter that reads no notifier may destroy the group.
      state_.fetch_sub(notifier_one, PILFER_SITE("pool.G5", release));
    }
  }

  basic_pool<Sync>& pool_;
  detail::task_base* creator_;  // the task in whose frames this group lies (parent of its tasks), or nullptr
  bool asym_;                   // the pool's fences are asymmetric: dequeues may skip their RMW (invariant E)
  atomic_t<Sync, std::uint32_t> claims_begun_{0};  // a wait has announced claims: members are born with the intent
  atomic_t<Sync, std::uint32_t> claim_epoch_{0};   // stepped to wake claimers (invariant K)
  atomic_t<Sync, std::uint64_t> state_{0};
  atomic_t<Sync, std::uint32_t> error_claimed_{0};
  cell_t<Sync, std::exception_ptr> error_{};
  typename Sync::mutex members_mu_;
  atomic_t<Sync, member*> members_{nullptr};  // pushed by run(), unlinked under members_mu_
  cell_t<Sync, member*> started_{nullptr};    // retired, not yet reclaimable (under members_mu_)
  cell_t<Sync, bool> collected_{false};  // a wait() rethrew error_ (under members_mu_)
  cell_t<Sync, std::uint64_t> error_round_{0};  // crossings field of error_'s round (under members_mu_)
  atomic_t<Sync, bool> waited_{false};   // a wait() has finished a round (waited_before)
};

using task_group = basic_task_group<>;

}  // namespace pilfer
