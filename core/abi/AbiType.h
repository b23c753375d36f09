#pragma once

#include "chain/ChainParseError.h"

#include <QJsonValue>
#include <QList>
#include <QString>
#include <memory>
#include <stdexcept>

namespace forkscope::abi {

// A malformed ABI file or an undecodable log; the message names where, on one line
// whatever names and types the file spells.
class AbiError : public std::runtime_error
{
public:
    explicit AbiError(const QString& message)
        : std::runtime_error(chain::shownText(message, -1).toStdString())
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
};

struct AbiParam;

// A Solidity ABI type: elementary, array (fixed or dynamic length) or tuple.
struct AbiType
{
    enum class Kind {
        Address,
        Bool,
        Uint,
        Int,
        FixedBytes,
        Bytes,
        String,
        Array,
        FixedArray,
        Tuple
    };

    Kind kind = Kind::Uint;
    int bits = 256;                   // Uint/Int
    int size = 32;                    // FixedBytes
    std::size_t length = 0;           // FixedArray
    std::shared_ptr<AbiType> element; // Array/FixedArray
    QList<AbiParam> components;       // Tuple

    // From an ABI JSON parameter ({"type": "tuple[]", "components": [...]}); `where` is
    // its JSON path ("abi.json: abi[0].inputs[1]"), named by every error.
    static AbiType fromJson(const QJsonValue& param, const QString& where);

    // No encoding is this long (logs are bounded by block gas); sizes saturate here, so
    // an ABI type such as uint8[65536][65536][65536][65536] cannot overflow the arithmetic.
    static constexpr std::size_t kMaxHeadWords = std::size_t(1) << 40;

    bool isDynamic() const;
    // Words this type occupies in the head of an encoding (static types only; 1 otherwise),
    // at most kMaxHeadWords.
    std::size_t headWords() const;
    // Canonical form for signatures: "uint256", "(uint64,string,int32[])[]".
    QString canonical() const;
};

struct AbiParam
{
    QString name;
    AbiType type;
    bool indexed = false;

    // From an ABI JSON parameter: an object whose "name" (if any) is a string, "type" a
    // string, "indexed" (if any) a boolean and "components" (required for tuples) an array.
    // A field of another JSON type is an AbiError naming its path.
    static AbiParam fromJson(const QJsonValue& param, const QString& where);
};

// "is a string, expected an array": what a JSON value is, against what the ABI needs.
QString jsonTypeMismatch(const QJsonValue& v, const char* expected);

} // namespace forkscope::abi
