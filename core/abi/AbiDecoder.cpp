#include "AbiDecoder.h"
#include "chain/Hex.h"
#include "chain/SignedAmount.h"
#include "chain/U256.h"

#include <QJsonArray>

namespace forkscope::abi {

namespace {

QString componentKey(const AbiParam& p, qsizetype i)
{
    return p.name.isEmpty() ? QString::number(i) : p.name;
}

// Where a value sits, for error messages only: rendered when one is thrown, so decoding a
// large array builds no per-element names.
struct Path
{
    const Path* parent = nullptr;
    const QString* root = nullptr;    // the outermost name (the event's)
    const AbiParam* member = nullptr; // a tuple component or event input...
    qsizetype memberIndex = 0;        // ...and its position (its key when unnamed)
    qsizetype element = -1;           // an array element

    QString render() const
    {
        if (!parent)
            return root ? *root : QString();
        QString s = parent->render();
        if (member)
            return s + QLatin1Char('.') + componentKey(*member, memberIndex);
        return s + QStringLiteral("[%1]").arg(element);
    }
};

// Bytes a JSON string takes in compact JSON once escaped as QJsonDocument escapes it:
// quotes, \" \\ \b \f \n \r \t, \u00XX for the other control characters, UTF-8 otherwise.
qsizetype escapedAscii(unsigned char c)
{
    if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
        return 2;
    return c < 0x20 ? 6 : 1;
}

qsizetype jsonStringSize(const char* utf8, qsizetype len)
{
    qsizetype n = 2;
    for (qsizetype i = 0; i < len; ++i) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        n += c < 0x80 ? escapedAscii(c) : 1;
    }
    return n;
}

qsizetype jsonStringSize(QStringView s)
{
    qsizetype n = 2;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const char16_t u = s[i].unicode();
        if (u < 0x80) {
            n += escapedAscii(static_cast<unsigned char>(u));
        } else if (u < 0x800) {
            n += 2;
        } else if (QChar::isHighSurrogate(u) && i + 1 < s.size() && s[i + 1].isLowSurrogate()) {
            n += 4; // a pair is 4 bytes of UTF-8
            ++i;
        } else if (QChar::isSurrogate(u)) {
            n += 6; // half a pair, which a name from JSON may hold: written as \uXXXX
        } else {
            n += 3;
        }
    }
    return n;
}

// The compact size of a one-word value (a decimal or hex string, or a bool).
qsizetype scalarSize(const QJsonValue& v)
{
    if (v.isBool())
        return v.toBool() ? 4 : 5;
    return 2 + v.toString().size(); // ASCII digits, sign, 0x-hex: nothing to escape
}

// The word's low 8 bytes, big-endian.
quint64 low64(const QByteArray& w)
{
    quint64 v = 0;
    for (int i = 24; i < 32; ++i)
        v = (v << 8) | static_cast<unsigned char>(w[i]);
    return v;
}

// One static value from its 32-byte word. `where` renders the value's path, only for an
// error: most values are decoded in bulk, and their paths are never needed.
template <typename Where>
QJsonValue decodeStaticWord(const AbiType& t, const QByteArray& w, const Where& where)
{
    const auto every = [&](int from, int to, unsigned char byte) {
        for (int i = from; i < to; ++i)
            if (static_cast<unsigned char>(w[i]) != byte)
                return false;
        return true;
    };
    switch (t.kind) {
    case AbiType::Kind::Address:
        if (!every(0, 12, 0x00))
            throw AbiError(
                QStringLiteral("%1: address word has non-zero upper bytes").arg(where()));
        return chain::hex::encodeData(w.mid(12));
    case AbiType::Kind::Bool:
        if (!every(0, 31, 0x00) || static_cast<unsigned char>(w[31]) > 1)
            throw AbiError(QStringLiteral("%1: bool word is neither 0 nor 1").arg(where()));
        return w[31] == 1;
    case AbiType::Kind::FixedBytes:
        if (!every(t.size, 32, 0x00))
            throw AbiError(
                QStringLiteral("%1: bytes%2 has non-zero padding").arg(where()).arg(t.size));
        return chain::hex::encodeData(w.left(t.size));
    case AbiType::Kind::Uint: {
        const auto tooWide = [&] {
            return AbiError(
                QStringLiteral("%1: value does not fit uint%2").arg(where()).arg(t.bits));
        };
        if (every(0, 24, 0x00)) { // most values fit 64 bits: no 256-bit arithmetic for them
            const quint64 v = low64(w);
            if (t.bits < 64 && (v >> t.bits) != 0)
                throw tooWide();
            return QString::number(v);
        }
        const chain::U256 v = chain::u256::fromBigEndian(w, QString());
        if (t.bits < 256 && (v >> t.bits) != 0)
            throw tooWide();
        return chain::u256::toDecimal(v);
    }
    case AbiType::Kind::Int: {
        const bool negative = static_cast<unsigned char>(w[0]) & 0x80;
        // Sign extension: every byte above the type's width repeats the sign.
        const int signBytes = 32 - t.bits / 8;
        if (!every(0, signBytes, negative ? 0xff : 0x00) ||
            (signBytes < 32 && bool(static_cast<unsigned char>(w[signBytes]) & 0x80) != negative))
            throw AbiError(QStringLiteral("%1: value does not fit int%2").arg(where()).arg(t.bits));
        if (!negative && every(0, 24, 0x00))
            return QString::number(low64(w));
        if (negative && every(0, 24, 0xff) && (static_cast<unsigned char>(w[24]) & 0x80))
            return QString::number(qint64(low64(w))); // two's complement in 64 bits
        const chain::U256 raw = chain::u256::fromBigEndian(w, QString());
        if (!negative)
            return chain::u256::toDecimal(raw);
        // Two's complement: -(2^256 - raw).
        const chain::U256 magnitude = (~raw) + 1;
        return chain::u256::toDecimal(magnitude).prepend(QLatin1Char('-'));
    }
    default:
        throw AbiError(QStringLiteral("%1: %2 is not a one-word type").arg(where(), t.canonical()));
    }
}

// One decoding of one log's data. Every read is bounds-checked without copying, and every
// piece of output is charged to the budget before it is built.
class Decoder
{
public:
    Decoder(const QByteArray& data, DecodeBudget& budget) : m_data(data), m_budget(budget) {}

    // Bytes of data read so far, a word read twice counting twice (the work, as ethers
    // counts it for its inflation ratio).
    qsizetype bytesRead() const { return m_bytesRead; }

    QJsonValue decode(const AbiType& t, qsizetype pos, const Path& path, int depth)
    {
        if (depth > 32)
            throw AbiError(QStringLiteral("%1: nesting deeper than 32").arg(path.render()));
        switch (t.kind) {
        case AbiType::Kind::Bytes:
        case AbiType::Kind::String:
            return decodeBytes(t, pos, path);
        case AbiType::Kind::Array:
        case AbiType::Kind::FixedArray:
            return decodeArray(t, pos, path, depth);
        case AbiType::Kind::Tuple:
            return decodeTuple(t.components, pos, path, depth);
        default: {
            const QJsonValue v =
                decodeStaticWord(t, word(pos, path, "value"), [&path] { return path.render(); });
            charge(scalarSize(v), path);
            return v;
        }
        }
    }

    // A sequence of members encoded as a tuple whose head starts at `base` (tuples and the
    // event data itself), as an object keyed by member name.
    QJsonObject decodeTuple(const QList<AbiParam>& members, qsizetype base, const Path& path,
                            int depth)
    {
        charge(2, path); // {}
        QJsonObject o;
        qsizetype head = base;
        for (qsizetype i = 0; i < members.size(); ++i) {
            const AbiParam& m = members[i];
            const Path at{&path, nullptr, &m, i};
            const QString key = componentKey(m, i);
            charge(jsonStringSize(key) + 1 + (i > 0 ? 1 : 0), at); // "key": and a comma
            o.insert(key, decodeMember(m.type, base, head, at, depth));
        }
        return o;
    }

private:
    // The value whose head word(s) sit at `head` in a sequence starting at `base`;
    // advances `head` past them.
    QJsonValue decodeMember(const AbiType& t, qsizetype base, qsizetype& head, const Path& at,
                            int depth)
    {
        if (t.isDynamic()) {
            const qsizetype offset = index(head, at, "offset");
            head += 32;
            return decode(t, base + offset, at, depth + 1);
        }
        const qsizetype pos = head;
        head += qsizetype(t.headWords()) * 32;
        return decode(t, pos, at, depth + 1);
    }

    QJsonValue decodeBytes(const AbiType& t, qsizetype pos, const Path& path)
    {
        const qsizetype len = index(pos, path, "length");
        requireBytes(pos + 32, len, path, "content");
        const char* raw = m_data.constData() + pos + 32;
        m_bytesRead += len;
        if (t.kind == AbiType::Kind::Bytes) {
            charge(2 + 2 + 2 * len, path); // "0x" and two hex digits a byte
            return chain::hex::encodeData(QByteArray(raw, len));
        }
        charge(jsonStringSize(raw, len), path);
        const QByteArray bytes(raw, len);
        const QString text = QString::fromUtf8(bytes);
        if (text.toUtf8() != bytes)
            throw AbiError(QStringLiteral("%1: string is not valid UTF-8").arg(path.render()));
        return text;
    }

    QJsonValue decodeArray(const AbiType& t, qsizetype pos, const Path& path, int depth)
    {
        qsizetype count = qsizetype(t.length);
        qsizetype base = pos;
        if (t.kind == AbiType::Kind::Array) {
            count = index(pos, path, "length");
            base = pos + 32;
            // Every element needs at least one word: refuse lengths the data cannot hold.
            requireBytes(base, count * 32, path, "elements");
        } else if (!t.isDynamic()) {
            requireBytes(base, qsizetype(t.headWords()) * 32, path, "elements");
        }
        // Each element renders to one byte or more, plus a comma: refuse a count the
        // budget cannot hold before decoding any of them.
        charge(2, path); // []
        if (count > 0 && !m_budget.hasRoom(2 * count - 1))
            throw exceeded(path);
        QJsonArray a;
        qsizetype head = base;
        for (qsizetype i = 0; i < count; ++i) {
            const Path at{&path, nullptr, nullptr, 0, i};
            if (i > 0)
                charge(1, at);
            a.append(decodeMember(*t.element, base, head, at, depth));
        }
        return a;
    }

    QByteArray word(qsizetype pos, const Path& path, const char* what)
    {
        if (pos < 0 || pos > m_data.size() - 32)
            throw AbiError(QStringLiteral("%1 %2 needs bytes %3..%4 but the data has %5")
                               .arg(path.render(), QLatin1String(what))
                               .arg(pos)
                               .arg(pos + 32)
                               .arg(m_data.size()));
        m_bytesRead += 32;
        return QByteArray::fromRawData(m_data.constData() + pos, 32);
    }

    // A word that must be a small non-negative integer (offsets, lengths).
    qsizetype index(qsizetype pos, const Path& path, const char* what)
    {
        const QByteArray w = word(pos, path, what);
        for (int i = 0; i < 24; ++i)
            if (w[i] != 0)
                throw AbiError(QStringLiteral("%1 %2 at byte %3 is implausibly large")
                                   .arg(path.render(), QLatin1String(what))
                                   .arg(pos));
        const quint64 v = low64(w);
        if (v > quint64(m_data.size()))
            throw AbiError(QStringLiteral("%1 %2 at byte %3 (%4) points past the data (%5 bytes)")
                               .arg(path.render(), QLatin1String(what))
                               .arg(pos)
                               .arg(v)
                               .arg(m_data.size()));
        return qsizetype(v);
    }

    void requireBytes(qsizetype pos, qsizetype len, const Path& path, const char* what) const
    {
        if (pos < 0 || len < 0 || len > m_data.size() - pos)
            throw AbiError(
                QStringLiteral("%1 %2 of %3 bytes at byte %4 runs past the data (%5 bytes)")
                    .arg(path.render(), QLatin1String(what))
                    .arg(len)
                    .arg(pos)
                    .arg(m_data.size()));
    }

    void charge(qsizetype bytes, const Path& path)
    {
        if (!m_budget.charge(bytes))
            throw exceeded(path);
    }

    AbiError exceeded(const Path& path) const
    {
        return AbiError(path.render() + QStringLiteral(": ") + m_budget.limit().exceeded());
    }

    const QByteArray& m_data;
    DecodeBudget& m_budget;
    qsizetype m_bytesRead = 0;
};

} // namespace

QJsonObject AbiDecoder::decodeParams(const QList<AbiParam>& params, const QByteArray& data,
                                     const QString& where, DecodeStats* stats)
{
    DecodeBudget budget(data.size());
    Decoder decoder(data, budget);
    const auto report = [&] {
        if (stats)
            *stats = DecodeStats{budget.used(), decoder.bytesRead(), budget.limit()};
    };
    try {
        const Path root{nullptr, &where};
        QJsonObject o = decoder.decodeTuple(params, 0, root, 0);
        report();
        return o;
    } catch (...) {
        report();
        throw;
    }
}

QJsonValue AbiDecoder::decodeWord(const AbiType& type, const QByteArray& word, const QString& where)
{
    if (word.size() != 32)
        throw AbiError(QStringLiteral("%1: expected a 32-byte word").arg(where));
    return decodeStaticWord(type, word, [&where] { return where; });
}

} // namespace forkscope::abi
