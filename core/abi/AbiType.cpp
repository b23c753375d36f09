#include "AbiType.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

namespace forkscope::abi {

namespace {
AbiType parseTypeString(QString type, const QJsonValue& components, const QString& where)
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
        if (!components.isArray())
            throw AbiError(where + QStringLiteral(".components ") +
                           jsonTypeMismatch(components, "an array (the type is a tuple)"));
        const QJsonArray list = components.toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            AbiParam c =
                AbiParam::fromJson(list.at(i), where + QStringLiteral(".components[%1]").arg(i));
            c.indexed = false; // only an event's own inputs are indexed
            t.components.append(c);
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

QString jsonTypeMismatch(const QJsonValue& v, const char* expected)
{
    const char* is = "is missing";
    switch (v.type()) {
    case QJsonValue::Null:
        is = "is null";
        break;
    case QJsonValue::Bool:
        is = "is a boolean";
        break;
    case QJsonValue::Double:
        is = "is a number";
        break;
    case QJsonValue::String:
        is = "is a string";
        break;
    case QJsonValue::Array:
        is = "is an array";
        break;
    case QJsonValue::Object:
        is = "is an object";
        break;
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("%1, expected %2").arg(QLatin1String(is), QLatin1String(expected));
}

AbiType AbiType::fromJson(const QJsonValue& param, const QString& where)
{
    if (!param.isObject())
        throw AbiError(where + QLatin1Char(' ') + jsonTypeMismatch(param, "an object"));
    const QJsonObject o = param.toObject();
    const QJsonValue type = o.value(QLatin1String("type"));
    if (!type.isString())
        throw AbiError(where + QStringLiteral(".type ") + jsonTypeMismatch(type, "a string"));
    const QJsonValue components = o.value(QLatin1String("components"));
    if (!components.isUndefined() && !components.isArray())
        throw AbiError(where + QStringLiteral(".components ") +
                       jsonTypeMismatch(components, "an array"));
    return parseTypeString(type.toString(), components, where);
}

AbiParam AbiParam::fromJson(const QJsonValue& param, const QString& where)
{
    AbiParam p;
    p.type = AbiType::fromJson(param, where); // checks it is an object first
    const QJsonObject o = param.toObject();
    const QJsonValue name = o.value(QLatin1String("name"));
    if (!name.isUndefined() && !name.isString())
        throw AbiError(where + QStringLiteral(".name ") + jsonTypeMismatch(name, "a string"));
    const QJsonValue indexed = o.value(QLatin1String("indexed"));
    if (!indexed.isUndefined() && !indexed.isBool())
        throw AbiError(where + QStringLiteral(".indexed ") +
                       jsonTypeMismatch(indexed, "a boolean"));
    p.name = name.toString();
    p.indexed = indexed.toBool();
    return p;
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
    if (kind == Kind::FixedArray) {
        const std::size_t each = element->headWords(); // length is at most 65536
        return each > kMaxHeadWords / length ? kMaxHeadWords : length * each;
    }
    if (kind == Kind::Tuple) {
        std::size_t n = 0;
        for (const auto& c : components)
            n = std::min(kMaxHeadWords, n + c.type.headWords());
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
