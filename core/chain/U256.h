#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <boost/multiprecision/cpp_int.hpp>
#include <string_view>

namespace forkscope::chain {

// Unsigned 256-bit integer with checked arithmetic: an overflow or an underflow throws
// instead of wrapping, because a wrapped token balance is invented data.
using U256 = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    256, 256, boost::multiprecision::unsigned_magnitude, boost::multiprecision::checked, void>>;

namespace u256 {
// From a JSON-RPC quantity ("0x..." up to 64 significant hex digits).
U256 fromQuantity(const QJsonValue& v, const QString& field);
U256 fromQuantity(const QString& s, const QString& field);
// From a big-endian byte string of at most 32 bytes (an ABI word).
U256 fromBigEndian(const QByteArray& bytes, const QString& field);
// From a base-10 string as stored in the database ("0" for zero, no sign, no leading zeros).
U256 fromDecimal(const QString& s, const QString& field);
// The same from Latin-1 digits, without allocating: balances are parsed once per upsert.
U256 fromDecimal(std::string_view digits, const QString& field);
QString toDecimal(const U256& v);
QByteArray toBigEndian32(const U256& v);
} // namespace u256

} // namespace forkscope::chain
