#include "TokenMetadataReader.h"
#include "EthClient.h"
#include "RpcError.h"

namespace forkscope::rpc {

namespace {
// The first four bytes of keccak256("decimals()") and keccak256("symbol()").
const QByteArray kDecimals = QByteArray::fromHex("313ce567");
const QByteArray kSymbol = QByteArray::fromHex("95d89b41");
constexpr int kMaxSymbol = 32;

// A 32-byte big-endian word that must fit in 32 bits (offsets and lengths).
std::optional<quint32> smallWord(const QByteArray& bytes, qsizetype at)
{
    if (at < 0 || at + 32 > bytes.size())
        return std::nullopt;
    for (qsizetype i = at; i < at + 28; ++i)
        if (bytes[i] != 0)
            return std::nullopt;
    quint32 v = 0;
    for (qsizetype i = at + 28; i < at + 32; ++i)
        v = (v << 8) | quint8(bytes[i]);
    return v;
}

std::optional<QString> printable(const QByteArray& text)
{
    if (text.isEmpty() || text.size() > kMaxSymbol * 4)
        return std::nullopt;
    const QString s = QString::fromUtf8(text);
    if (s.size() > kMaxSymbol || s.contains(QChar::ReplacementCharacter))
        return std::nullopt;
    for (QChar c : s)
        if (!c.isPrint() || c.isSpace())
            return std::nullopt;
    return s;
}
} // namespace

std::optional<int> TokenMetadataReader::decodeDecimals(const QByteArray& reply)
{
    if (reply.size() != 32)
        return std::nullopt;
    const std::optional<quint32> v = smallWord(reply, 0);
    if (!v || *v > 77)
        return std::nullopt;
    return int(*v);
}

std::optional<QString> TokenMetadataReader::decodeSymbol(const QByteArray& reply)
{
    if (reply.size() == 32) { // bytes32, zero-padded on the right
        QByteArray text = reply;
        const qsizetype end = text.indexOf('\0');
        if (end >= 0) {
            for (qsizetype i = end; i < text.size(); ++i)
                if (text[i] != 0)
                    return std::nullopt;
            text.truncate(end);
        }
        return printable(text);
    }
    const std::optional<quint32> offset = smallWord(reply, 0);
    if (!offset || *offset % 32 != 0)
        return std::nullopt;
    const std::optional<quint32> length = smallWord(reply, qsizetype(*offset));
    const qsizetype start = qsizetype(*offset) + 32;
    if (!length || *length > kMaxSymbol * 4 || start + qsizetype(*length) > reply.size())
        return std::nullopt;
    return printable(reply.mid(start, *length));
}

std::optional<chain::TokenInfo> TokenMetadataReader::read(EthClient& eth,
                                                          const chain::Address& token, QString* why)
{
    const auto fail = [&](const QString& reason) -> std::optional<chain::TokenInfo> {
        if (why)
            *why = QStringLiteral("%1: %2; amounts shown in raw units").arg(token.toHex(), reason);
        return std::nullopt;
    };
    const auto ask = [&](const QByteArray& selector) -> std::optional<QByteArray> {
        try {
            return eth.callContract(token, selector);
        } catch (const RpcException& e) {
            // A revert is an answer (no such function); a transport failure is not.
            if (e.error().kind == RpcError::Kind::Remote ||
                e.error().kind == RpcError::Kind::Malformed)
                return std::nullopt;
            throw;
        }
    };
    const std::optional<QByteArray> decimalsReply = ask(kDecimals);
    if (!decimalsReply)
        return fail(QStringLiteral("decimals() reverted or is not a function"));
    const std::optional<int> decimals = decodeDecimals(*decimalsReply);
    if (!decimals)
        return fail(QStringLiteral("decimals() answered %1 bytes that are not a number from 0 "
                                   "to 77")
                        .arg(decimalsReply->size()));
    chain::TokenInfo info;
    info.decimals = *decimals;
    // A token without a usable symbol still gets its decimals.
    if (const std::optional<QByteArray> symbolReply = ask(kSymbol))
        info.symbol = decodeSymbol(*symbolReply).value_or(QString());
    return info;
}

} // namespace forkscope::rpc
