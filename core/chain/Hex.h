#pragma once

#include "FieldPath.h"

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <QStringView>
#include <cstdint>
#include <string_view>

// Strict decoding of the hex encodings used by Ethereum JSON-RPC.
// "Quantities" are 0x-prefixed, non-empty, big-endian numbers; "data" is 0x-prefixed with
// an even number of digits. Anything else (no prefix, JSON numbers, nulls, stray
// characters, signs, fractions) is rejected with a ChainParseError naming `field`.
namespace forkscope::chain::hex {

// Human-readable rendering of an arbitrary JSON value for error messages.
QString describe(const QJsonValue& v);

// The string of a JSON value that must be a string; rejects null, numbers, objects.
QString requireString(const QJsonValue& v, const QString& field, const char* expected);

// Hex digits after a mandatory 0x prefix; rejects anything that is not [0-9a-fA-F]+.
QString quantityDigits(const QString& s, const QString& field);

// A quantity that must fit in 63 bits (block numbers, timestamps, log indices): it is
// stored in SQLite INTEGER columns, which are signed 64-bit.
std::uint64_t parseQuantityU63(const QJsonValue& v, const QString& field);
std::uint64_t parseQuantityU63(const QString& s, const QString& field);

// A base-10 unsigned integer as typed by a user (command line, settings): no sign, no
// fraction, no exponent, no surrounding spaces, at most 63 bits.
std::uint64_t parseDecimalU63(const QString& s, const QString& field);

// 0x-prefixed byte string with an even number of digits; `exactBytes` < 0 means any length.
QByteArray parseData(const QString& s, const QString& field, int exactBytes = -1);
QByteArray parseData(const QJsonValue& v, const QString& field, int exactBytes = -1);

// The same rules over the UTF-8 text of a JSON string, for the simdjson readers of replies:
// nothing is allocated unless a value is rejected. The QString overloads above delegate to
// these, so both paths accept and reject exactly the same text with the same messages.
std::string_view quantityDigits(std::string_view s, const FieldPath& field);
std::uint64_t parseQuantityU63(std::string_view s, const FieldPath& field);
QByteArray parseData(std::string_view s, const FieldPath& field, int exactBytes = -1);
// Exactly `n` bytes (0x + 2n hex digits) into `out`: hashes, addresses, blooms.
void parseFixed(std::string_view s, const FieldPath& field, std::uint8_t* out, int n);

// Whether `text` is exactly encodeData(bytes): "0x" and two lowercase digits per byte. It
// compares text read back from the contract's hex surface with bytes in hand without
// building a string per value (the invariant check reads a million such values).
bool isEncodingOf(QStringView text, const std::uint8_t* bytes, qsizetype n);
inline bool isEncodingOf(QStringView text, const QByteArray& bytes)
{
    return isEncodingOf(text, reinterpret_cast<const std::uint8_t*>(bytes.constData()),
                        bytes.size());
}

QString encodeQuantity(std::uint64_t n);
QString encodeData(const QByteArray& bytes);
// The same text as Latin-1 bytes (for binding straight into SQLite).
QByteArray encodeDataLatin1(const QByteArray& bytes);

} // namespace forkscope::chain::hex
