#include "AbiDecoder.h"
#include "chain/Hex.h"
#include "chain/SignedAmount.h"
#include "chain/U256.h"

#include <QJsonArray>

namespace forkscope::abi {

namespace {

class Reader
{
public:
    Reader(const QByteArray& data, const QString& where) : m_data(data), m_where(where) {}

    QByteArray word(qsizetype pos, const QString& what) const
    {
        if (pos < 0 || pos + 32 > m_data.size())
            throw AbiError(QStringLiteral("%1: %2 needs bytes %3..%4 but the data has %5")
                               .arg(m_where, what)
                               .arg(pos)
                               .arg(pos + 32)
                               .arg(m_data.size()));
        return m_data.mid(pos, 32);
    }
    // A word that must be a small non-negative integer (offsets, lengths).
    qsizetype index(qsizetype pos, const QString& what) const
    {
        const QByteArray w = word(pos, what);
        for (int i = 0; i < 24; ++i)
            if (w[i] != 0)
                throw AbiError(QStringLiteral("%1: %2 at byte %3 is implausibly large")
                                   .arg(m_where, what)
                                   .arg(pos));
        quint64 v = 0;
        for (int i = 24; i < 32; ++i)
            v = (v << 8) | static_cast<unsigned char>(w[i]);
        if (v > quint64(m_data.size()))
            throw AbiError(QStringLiteral("%1: %2 at byte %3 (%4) points past the data (%5 bytes)")
                               .arg(m_where, what)
                               .arg(pos)
                               .arg(v)
                               .arg(m_data.size()));
        return qsizetype(v);
    }
    QByteArray bytes(qsizetype pos, qsizetype len, const QString& what) const
    {
        if (pos < 0 || len < 0 || pos + len > m_data.size())
            throw AbiError(QStringLiteral("%1: %2 of %3 bytes at byte %4 runs past the data")
                               .arg(m_where, what)
                               .arg(len)
                               .arg(pos));
        return m_data.mid(pos, len);
    }
    const QString& where() const { return m_where; }

private:
    const QByteArray& m_data;
    QString m_where;
};

QJsonValue decodeStaticWord(const AbiType& t, const QByteArray& w, const QString& where)
{
    const auto allZero = [&](int from, int to) {
        for (int i = from; i < to; ++i)
            if (w[i] != 0)
                return false;
        return true;
    };
    switch (t.kind) {
    case AbiType::Kind::Address:
        if (!allZero(0, 12))
            throw AbiError(QStringLiteral("%1: address word has non-zero upper bytes").arg(where));
        return chain::hex::encodeData(w.mid(12));
    case AbiType::Kind::Bool:
        if (!allZero(0, 31) || static_cast<unsigned char>(w[31]) > 1)
            throw AbiError(QStringLiteral("%1: bool word is neither 0 nor 1").arg(where));
        return w[31] == 1;
    case AbiType::Kind::FixedBytes:
        if (!allZero(t.size, 32))
            throw AbiError(
                QStringLiteral("%1: bytes%2 has non-zero padding").arg(where).arg(t.size));
        return chain::hex::encodeData(w.left(t.size));
    case AbiType::Kind::Uint: {
        const chain::U256 v = chain::u256::fromBigEndian(w, where);
        if (t.bits < 256 && (v >> t.bits) != 0)
            throw AbiError(QStringLiteral("%1: value does not fit uint%2").arg(where).arg(t.bits));
        return chain::u256::toDecimal(v);
    }
    case AbiType::Kind::Int: {
        const bool negative = static_cast<unsigned char>(w[0]) & 0x80;
        // Sign extension: every byte above the type's width repeats the sign.
        const int signBytes = 32 - t.bits / 8;
        for (int i = 0; i < signBytes; ++i)
            if (static_cast<unsigned char>(w[i]) != (negative ? 0xff : 0x00))
                throw AbiError(
                    QStringLiteral("%1: value does not fit int%2").arg(where).arg(t.bits));
        if (signBytes < 32 && bool(static_cast<unsigned char>(w[signBytes]) & 0x80) != negative)
            throw AbiError(QStringLiteral("%1: value does not fit int%2").arg(where).arg(t.bits));
        const chain::U256 raw = chain::u256::fromBigEndian(w, where);
        if (!negative)
            return chain::u256::toDecimal(raw);
        // Two's complement: -(2^256 - raw).
        const chain::U256 magnitude = (~raw) + 1;
        return QStringLiteral("-") + chain::u256::toDecimal(magnitude);
    }
    default:
        throw AbiError(QStringLiteral("%1: %2 is not a one-word type").arg(where, t.canonical()));
    }
}

QJsonValue decodeAt(const Reader& r, const AbiType& t, qsizetype pos, const QString& where,
                    int depth);

QString componentKey(const AbiParam& p, int i)
{
    return p.name.isEmpty() ? QString::number(i) : p.name;
}

// A sequence encoded as a tuple starting at `base` (its head), as for tuples, arrays and
// the event data itself.
QList<QJsonValue> decodeSequence(const Reader& r, const QList<const AbiType*>& types,
                                 qsizetype base, const QStringList& names, int depth)
{
    QList<QJsonValue> out;
    qsizetype head = base;
    for (qsizetype i = 0; i < types.size(); ++i) {
        const AbiType& t = *types[i];
        const QString where = names.at(i);
        if (t.isDynamic()) {
            const qsizetype offset = r.index(head, where + QStringLiteral(" offset"));
            out.append(decodeAt(r, t, base + offset, where, depth + 1));
            head += 32;
        } else {
            out.append(decodeAt(r, t, head, where, depth + 1));
            head += qsizetype(t.headWords()) * 32;
        }
    }
    return out;
}

QJsonValue decodeAt(const Reader& r, const AbiType& t, qsizetype pos, const QString& where,
                    int depth)
{
    if (depth > 32)
        throw AbiError(QStringLiteral("%1: nesting deeper than 32").arg(where));
    switch (t.kind) {
    case AbiType::Kind::Bytes:
    case AbiType::Kind::String: {
        const qsizetype len = r.index(pos, where + QStringLiteral(" length"));
        const QByteArray raw = r.bytes(pos + 32, len, where);
        if (t.kind == AbiType::Kind::Bytes)
            return chain::hex::encodeData(raw);
        const QString text = QString::fromUtf8(raw);
        if (text.toUtf8() != raw)
            throw AbiError(QStringLiteral("%1: string is not valid UTF-8").arg(where));
        return text;
    }
    case AbiType::Kind::Array:
    case AbiType::Kind::FixedArray: {
        qsizetype count = qsizetype(t.length);
        qsizetype base = pos;
        if (t.kind == AbiType::Kind::Array) {
            count = r.index(pos, where + QStringLiteral(" length"));
            base = pos + 32;
            // Every element needs at least one word: refuse lengths the data cannot hold.
            r.bytes(base, count * 32, where + QStringLiteral(" elements"));
        }
        QList<const AbiType*> types(count, t.element.get());
        QStringList names;
        for (qsizetype i = 0; i < count; ++i)
            names << where + QStringLiteral("[%1]").arg(i);
        QJsonArray a;
        for (const QJsonValue& v : decodeSequence(r, types, base, names, depth))
            a.append(v);
        return a;
    }
    case AbiType::Kind::Tuple: {
        QList<const AbiType*> types;
        QStringList names;
        for (int i = 0; i < t.components.size(); ++i) {
            types << &t.components[i].type;
            names << where + QLatin1Char('.') + componentKey(t.components[i], i);
        }
        const QList<QJsonValue> values = decodeSequence(r, types, pos, names, depth);
        QJsonObject o;
        for (int i = 0; i < t.components.size(); ++i)
            o.insert(componentKey(t.components[i], i), values[i]);
        return o;
    }
    default:
        return decodeStaticWord(t, r.word(pos, where), where);
    }
}

} // namespace

QJsonObject AbiDecoder::decodeParams(const QList<AbiParam>& params, const QByteArray& data,
                                     const QString& where)
{
    Reader r(data, where);
    QList<const AbiType*> types;
    QStringList names;
    for (int i = 0; i < params.size(); ++i) {
        types << &params[i].type;
        names << where + QLatin1Char('.') + componentKey(params[i], i);
    }
    const QList<QJsonValue> values = decodeSequence(r, types, 0, names, 0);
    QJsonObject o;
    for (int i = 0; i < params.size(); ++i)
        o.insert(componentKey(params[i], i), values[i]);
    return o;
}

QJsonValue AbiDecoder::decodeWord(const AbiType& type, const QByteArray& word, const QString& where)
{
    if (word.size() != 32)
        throw AbiError(QStringLiteral("%1: expected a 32-byte word").arg(where));
    return decodeStaticWord(type, word, where);
}

} // namespace forkscope::abi
