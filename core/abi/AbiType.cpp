#include "AbiType.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace forkscope::abi {

namespace {
AbiType parseTypeString(QString type, const QJsonArray& components, const QString& where)
{
    // Array suffixes bind from the right: "uint8[2][]" is a dynamic array of uint8[2].
    if (type.endsWith(QLatin1Char(']'))) {
        const qsizetype open = type.lastIndexOf(QLatin1Char('['));
        if (open < 0)
            throw AbiError(QStringLiteral("%1: malformed array type \"%2\"").arg(where, type));
        const QString inner = type.mid(open + 1, type.size() - open - 2);
        AbiType t;
        t.element = std::make_shared<AbiType>(parseTypeString(type.left(open), components, where));
        if (inner.isEmpty()) {
            t.kind = AbiType::Kind::Array;
        } else {
            bool ok = false;
            t.length = inner.toULongLong(&ok);
            if (!ok || t.length == 0 || t.length > 65536)
                throw AbiError(QStringLiteral("%1: bad array length in \"%2\"").arg(where, type));
            t.kind = AbiType::Kind::FixedArray;
        }
        return t;
    }
    AbiType t;
    static const QRegularExpression sized(QStringLiteral("^(uint|int|bytes)(\\d+)$"));
    if (type == QLatin1String("address")) {
        t.kind = AbiType::Kind::Address;
    } else if (type == QLatin1String("bool")) {
        t.kind = AbiType::Kind::Bool;
    } else if (type == QLatin1String("string")) {
        t.kind = AbiType::Kind::String;
    } else if (type == QLatin1String("bytes")) {
        t.kind = AbiType::Kind::Bytes;
    } else if (type == QLatin1String("uint") || type == QLatin1String("int")) {
        t.kind = type == QLatin1String("uint") ? AbiType::Kind::Uint : AbiType::Kind::Int;
        t.bits = 256;
    } else if (type == QLatin1String("tuple")) {
        t.kind = AbiType::Kind::Tuple;
        for (qsizetype i = 0; i < components.size(); ++i) {
            const QJsonObject c = components.at(i).toObject();
            t.components.append(AbiParam{
                c.value(QLatin1String("name")).toString(),
                AbiType::fromJson(c, where + QStringLiteral(".components[%1]").arg(i)), false});
        }
    } else if (const auto m = sized.match(type); m.hasMatch()) {
        const int n = m.captured(2).toInt();
        if (m.captured(1) == QLatin1String("bytes")) {
            if (n < 1 || n > 32)
                throw AbiError(QStringLiteral("%1: bad type \"%2\"").arg(where, type));
            t.kind = AbiType::Kind::FixedBytes;
            t.size = n;
        } else {
            if (n < 8 || n > 256 || n % 8 != 0)
                throw AbiError(QStringLiteral("%1: bad type \"%2\"").arg(where, type));
            t.kind =
                m.captured(1) == QLatin1String("uint") ? AbiType::Kind::Uint : AbiType::Kind::Int;
            t.bits = n;
        }
    } else {
        throw AbiError(QStringLiteral("%1: unsupported type \"%2\"").arg(where, type));
    }
    return t;
}
} // namespace

AbiType AbiType::fromJson(const QJsonValue& param, const QString& where)
{
    const QJsonObject o = param.toObject();
    const QJsonValue type = o.value(QLatin1String("type"));
    if (!type.isString())
        throw AbiError(QStringLiteral("%1: parameter without a \"type\"").arg(where));
    return parseTypeString(type.toString(), o.value(QLatin1String("components")).toArray(), where);
}

bool AbiType::isDynamic() const
{
    switch (kind) {
    case Kind::Bytes:
    case Kind::String:
    case Kind::Array:
        return true;
    case Kind::FixedArray:
        return element->isDynamic();
    case Kind::Tuple:
        for (const auto& c : components)
            if (c.type.isDynamic())
                return true;
        return false;
    default:
        return false;
    }
}

std::size_t AbiType::headWords() const
{
    if (isDynamic())
        return 1;
    if (kind == Kind::FixedArray)
        return length * element->headWords();
    if (kind == Kind::Tuple) {
        std::size_t n = 0;
        for (const auto& c : components)
            n += c.type.headWords();
        return n;
    }
    return 1;
}

QString AbiType::canonical() const
{
    switch (kind) {
    case Kind::Address:
        return QStringLiteral("address");
    case Kind::Bool:
        return QStringLiteral("bool");
    case Kind::Uint:
        return QStringLiteral("uint%1").arg(bits);
    case Kind::Int:
        return QStringLiteral("int%1").arg(bits);
    case Kind::FixedBytes:
        return QStringLiteral("bytes%1").arg(size);
    case Kind::Bytes:
        return QStringLiteral("bytes");
    case Kind::String:
        return QStringLiteral("string");
    case Kind::Array:
        return element->canonical() + QStringLiteral("[]");
    case Kind::FixedArray:
        return element->canonical() + QStringLiteral("[%1]").arg(length);
    case Kind::Tuple: {
        QStringList parts;
        for (const auto& c : components)
            parts << c.type.canonical();
        return QLatin1Char('(') + parts.join(QLatin1Char(',')) + QLatin1Char(')');
    }
    }
    return {};
}

} // namespace forkscope::abi
