#pragma once

#include "U256.h"

#include <QString>
#include <boost/multiprecision/cpp_int.hpp>

namespace forkscope::chain {

// Signed, checked 257-bit: a token balance is received minus sent. It can only go negative
// when indexing starts (--from-block) after transfers the indexer never saw; such a
// balance is stored as "-N" rather than clamped or wrapped, so the gap stays visible.
using SignedAmount = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    257, 257, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>>;

namespace amount {
QString toString(const SignedAmount& a);
// Base-10 with an optional leading '-'; throws ChainParseError naming `field`.
SignedAmount fromString(const QString& s, const QString& field);
SignedAmount fromString(const char* utf8, int length, const QString& field);
} // namespace amount

} // namespace forkscope::chain
