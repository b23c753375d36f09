#pragma once

#include <QJsonValue>
#include <QList>
#include <QString>
#include <memory>
#include <stdexcept>

namespace forkscope::abi {

// A malformed ABI file or an undecodable log; the message names where.
class AbiError : public std::runtime_error
{
public:
    explicit AbiError(const QString& message) : std::runtime_error(message.toStdString()) {}
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

    // From an ABI JSON parameter ({"type": "tuple[]", "components": [...]}).
    static AbiType fromJson(const QJsonValue& param, const QString& where);

    bool isDynamic() const;
    // Words this type occupies in the head of an encoding (static types only; 1 otherwise).
    std::size_t headWords() const;
    // Canonical form for signatures: "uint256", "(uint64,string,int32[])[]".
    QString canonical() const;
};

struct AbiParam
{
    QString name;
    AbiType type;
    bool indexed = false;
};

} // namespace forkscope::abi
