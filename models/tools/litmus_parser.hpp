// litmus_parser.hpp — the front-end of `pilfer-litmus`: herd7's C litmus format.
//
// A litmus test is parsed into a `program` (locations with initial values,
// threads as small ASTs, a final condition). `run_thread` interprets one
// thread against an abstract `memory`; the tool (litmus.cpp) implements that
// interface with the model checker's checker_sync atomics, so the engine
// explores every RC11-consistent execution while this file stays free of any
// engine dependency (the parser unit tests use a sequential memory).
//
// Accepted syntax (herd7 "C" tests, plus common variations):
//   C NAME                       name = rest of the line
//   "free text"                  optional; also key=value lines (Variant=...)
//   { x = 0; int y = 1; atomic_int z; [w]=2; 0:r0=3; }   init (missing → 0)
//   P0 (atomic_int* x, volatile int *y) { ... }            threads
//   locations [x; 0:r0;]         optional extra observed locations
//   exists / ~exists / forall (0:r0=1 /\ P1:r1=0 \/ ~x=2 /\ [y]=1)
// Statements: declarations `int r0 = e, r1;`, `r = e;`, `*x = e;`, `if`/`else`,
// blocks, `while (e) s` (bounded by the checker's step limit), expression
// statements. Expressions: C operators (|| && | ^ & == != < <= > >= + - * / %
// unary ! - ~ *), the C11 <stdatomic.h> calls with or without _explicit,
// and the LKMM macros READ_ONCE / WRITE_ONCE / smp_load_acquire /
// smp_store_release / smp_mb (mapped to C11 relaxed / acquire / release /
// seq_cst fence — an approximation: RC11 is not LKMM).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pilfer::litmus {

using value = std::int64_t;

/// A parse failure with a 1-based position in the source.
class parse_error : public std::runtime_error {
 public:
  parse_error(int line, int column, const std::string& what);
  int line() const noexcept { return line_; }
  int column() const noexcept { return column_; }

 private:
  int line_;
  int column_;
};

/// C11 memory orders, independent of <atomic> (only sync.hpp names it).
enum class order { relaxed, consume, acquire, release, acq_rel, seq_cst };
const char* order_name(order o) noexcept;

/// Read-modify-write operations.
enum class rmw_op { exchange, add, sub, bit_or, bit_and, bit_xor };

/// A shared location (one memory cell). An array `int y[3]` is three consecutive
/// locations "y", "y[1]", "y[2]" whose `array_base` is the index of "y".
struct location {
  std::string name;
  value init = 0;
  bool atomic = true;  ///< declared atomic by some thread or the init block
  int array_base = -1;  ///< index of element 0 of the array this cell belongs to (-1: itself)
  int array_size = 1;   ///< number of elements of that array (on every element)
  /// The declared width, from the first declaration that names one (`atomic_int`, `int*`,
  /// `int64_t`, `unsigned char`, ...): every value the location holds is wrapped to it (two's
  /// complement, as an atomic RMW wraps). 64 when no declaration names a width.
  int bits = 64;
  bool is_unsigned = false;
};

/// `v` as location `l` holds it: its low `l.bits` bits, sign- or zero-extended.
value wrap_to_width(const location& l, value v) noexcept;

struct expr;
using expr_ptr = std::unique_ptr<expr>;

struct expr {
  enum class kind {
    constant,   // v
    local,      // locals[index]
    unary,      // op a
    binary,     // a op b   (&& || short-circuit)
    load,       // atomic load of loc (ord1)
    plain_read, // *loc on an int*  (non-atomic)
    rmw,        // fetch_op(loc, a, ord1) → old value
    cas,        // compare_exchange(loc, &locals[index], a, ord1, ord2) → 0/1
  };
  kind k = kind::constant;
  value v = 0;
  int index = -1;       // local slot
  int loc = -1;         // location index
  std::string op;       // operator spelling for unary/binary
  rmw_op rop = rmw_op::exchange;
  order ord1 = order::seq_cst;
  order ord2 = order::seq_cst;
  expr_ptr a, b;
  expr_ptr off;         // element offset added to `loc` (pointer arithmetic `y+r0`), or null
  int exp_loc = -1;     // cas: `expected` is a location (pointer argument), else locals[index]
  expr_ptr exp_off;     // cas: offset of that location
  std::optional<value> readsvalue;  // load: CppMem `.readsvalue(v)`, other values are discarded
  std::string tag;      // site tag for the checker ("P0:L7 load x")
  std::string exp_tag;  // cas with a location `expected`: tag of its plain read/write-back (set with tag)
};

struct stmt;
using stmt_ptr = std::unique_ptr<stmt>;

struct stmt {
  enum class kind {
    block,        // body
    assign,       // locals[index] = a
    store,        // atomic store loc = a (ord1)
    plain_write,  // *loc = a (non-atomic)
    fence,        // fence(ord1)
    eval,         // evaluate a, discard
    if_,          // if (a) body[0] else body[1]
    while_,       // while (a) body[0]
    assume,       // assume(a) / __VERIFIER_assume(a): an execution where a == 0 is discarded
  };
  kind k = kind::block;
  int index = -1;
  int loc = -1;
  order ord1 = order::seq_cst;
  expr_ptr a;
  expr_ptr off;         // element offset added to `loc`, or null
  std::vector<stmt_ptr> body;
  std::string tag;
};

/// One thread of the test.
struct thread_code {
  std::string name;                 ///< "P0"
  unsigned id = 0;                  ///< the N of PN
  std::vector<std::string> locals;  ///< local variable names (registers)
  std::vector<value> local_init;    ///< initial values (init block `0:r0=1`)
  stmt_ptr body;
};

/// A term of the final condition.
struct prop;
using prop_ptr = std::unique_ptr<prop>;
struct prop {
  enum class kind { truth, atom, not_, and_, or_ };
  kind k = kind::truth;
  bool truth = true;
  // atom: observable `obs` (compared with value `v`, `eq` true for =, false for !=)
  int obs = -1;
  bool eq = true;
  value v = 0;
  prop_ptr a, b;
};

/// Something the final state shows: a register of a thread, or a location.
struct observable {
  int thread = -1;  ///< index into program::threads, -1 for a location
  int slot = -1;    ///< local slot or location index
  std::string label;  ///< "0:r0" or "x"
};

enum class quantifier { exists, not_exists, forall };

struct program {
  std::string arch = "C";
  std::string name;
  std::string comment;
  std::vector<location> locations;
  std::vector<thread_code> threads;
  quantifier quant = quantifier::exists;
  prop_ptr cond;                      ///< the proposition under the quantifier
  std::vector<observable> observed;   ///< condition + `locations` clause, in order
  std::string cond_text;              ///< herd-like rendering of the condition
  bool plain_accesses = false;        ///< some access is non-atomic (races are possible)
  bool cppmem = false;                ///< parsed from CppMem's `int main() { {{{ ... }}} }` form

  int find_location(const std::string& n) const;
};

/// Parse a litmus test: herd7's C format, or CppMem's `int main() { ... {{{ a ||| b }}} }`
/// (detected by its `int main`). Throws parse_error with line and column.
program parse(const std::string& source);
program parse_file(const std::string& path);  // throws std::runtime_error if unreadable

/// The memory a thread runs against. Implemented with checker_sync in the
/// tool and with a plain sequential memory in the unit tests.
class memory {
 public:
  virtual ~memory() = default;
  virtual value load(int loc, order o, const std::string& tag) = 0;
  virtual void store(int loc, value v, order o, const std::string& tag) = 0;
  virtual value rmw(int loc, rmw_op op, value operand, order o, const std::string& tag) = 0;
  /// Strong CAS: on failure `expected` receives the value read.
  virtual bool cas(int loc, value& expected, value desired, order success, order failure,
                   const std::string& tag) = 0;
  virtual void fence(order o, const std::string& tag) = 0;
  virtual value plain_read(int loc, const std::string& tag) = 0;
  virtual void plain_write(int loc, value v, const std::string& tag) = 0;
};

/// How a thread's interpretation ended.
enum class thread_end {
  finished,        ///< ran to its end
  out_of_bounds,   ///< an access left its array (undefined behaviour; the thread stops there)
  filtered,        ///< a CppMem `.readsvalue(v)` read another value: the execution is discarded
  assume_failed,   ///< `assume(e)` with e == 0: the execution is blocked (not counted as complete)
  step_limit,      ///< ran more than `max_thread_steps` statements (an unbounded local loop)
  division_by_zero,  ///< `/` or `%` by zero (undefined behaviour; the thread stops there)
};

/// Statements one thread may execute before it is stopped (loops without shared accesses
/// are not bounded by the checker's event limit).
inline constexpr std::size_t max_thread_steps = 100000;

/// Interpret thread `t` of `p`; registers are read from and left in `regs`
/// (sized to the thread's locals by the caller via `initial_registers`).
thread_end run_thread(const program& p, unsigned t, memory& m, std::vector<value>& regs);
std::vector<value> initial_registers(const program& p, unsigned t);

/// A final state: values of `program::observed`, in order.
using state = std::vector<value>;
bool evaluate(const prop& c, const state& s);

/// Render a state herd-style: "0:r0=1; x=2;".
std::string format_state(const program& p, const state& s);

/// Pure combination of rmw_op (old value, operand) → new value.
value apply_rmw(rmw_op op, value old, value operand) noexcept;

}  // namespace pilfer::litmus
