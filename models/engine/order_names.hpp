// models/engine/order_names.hpp — the one table of memory-order names. The engine's traces, the
// scenario runner's --weaken and the litmus / CppMem front-end all read it, so the spellings they
// print and accept cannot drift apart.
//
// Header-only and free of <atomic>: the litmus front-end has an `order` enum of its own and its
// libFuzzer target is built from its sources alone. An enum works with this table when it declares
// the six orders in the table's order with the values 0..5, as std::memory_order does; each user
// static_asserts that with declared_in_table_order().
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pilfer::model::orders {

/// The six C++ memory orders, in std::memory_order's declaration order.
inline constexpr std::array<const char*, 6> names{"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};

/// The prefixes a name may carry: none ("acquire"), the standard's ("memory_order_acquire", as C and
/// herd7 litmus tests write it) and CppMem's shorthand ("mo_acquire").
inline constexpr std::array<const char*, 3> prefixes{"", "memory_order_", "mo_"};

/// The index in `names` of the order `spelling` names (with any of `prefixes`); nothing otherwise.
constexpr std::optional<std::size_t> index_of(std::string_view spelling) noexcept {
  for (const std::string_view prefix : prefixes) {
    if (!spelling.starts_with(prefix)) continue;
    const std::string_view bare = spelling.substr(prefix.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (bare == names[i]) return i;
  }
  return std::nullopt;
}

/// True when `Order`'s enumerators, passed in the table's order, have the values 0..5: the
/// precondition of parse<Order>() and name_of().
template <class Order>
constexpr bool declared_in_table_order(Order relaxed, Order consume, Order acquire, Order release, Order acq_rel,
                                       Order seq_cst) noexcept {
  const std::array<Order, 6> in_order{relaxed, consume, acquire, release, acq_rel, seq_cst};
  for (std::size_t i = 0; i < in_order.size(); ++i)
    if (static_cast<std::size_t>(in_order[i]) != i) return false;
  return true;
}

/// The order `spelling` names, as an `Order` (std::memory_order or the litmus front-end's `order`).
template <class Order>
constexpr std::optional<Order> parse(std::string_view spelling) noexcept {
  const auto i = index_of(spelling);
  if (!i) return std::nullopt;
  return static_cast<Order>(*i);
}

/// The bare name of `o` ("acq_rel"); "?" for a value that is none of the six.
template <class Order>
constexpr const char* name_of(Order o) noexcept {
  const auto i = static_cast<std::size_t>(o);
  return i < names.size() ? names[i] : "?";
}

/// The one-line message for a spelling that names no order, listing what is accepted.
inline std::string unknown_order_message(std::string_view spelling) {
  std::string m = "unknown memory order '" + std::string(spelling) + "' (expected ";
  for (std::size_t i = 0; i < names.size(); ++i) m += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return m + ", bare or with prefix memory_order_ or mo_)";
}

}  // namespace pilfer::model::orders
