#include "ArgsTemplate.h"

namespace forkscope::indexer {

namespace {
// \x01 cannot occur in an ABI name, and JSON escapes it inside strings.
const QByteArray kFrom("\x01"
                       "F");
const QByteArray kTo("\x01"
                     "T");
const QByteArray kValue("\x01"
                        "V");

QByteArray quoted(const QByteArray& s)
{
    QByteArray q;
    q.reserve(s.size() + 2);
    return q.append('"').append(s).append('"');
}
} // namespace

std::optional<QByteArray> argsTemplateFor(const QByteArray& argsJson, const QByteArray& fromHex,
                                          const QByteArray& toHex, const QByteArray& value)
{
    if (argsJson.contains('\x01'))
        return std::nullopt;
    QByteArray t = argsJson;
    t.replace(quoted(fromHex), quoted(kFrom));
    t.replace(quoted(toHex), quoted(kTo));
    t.replace(quoted(value), quoted(kValue));
    if (t.count(kFrom) != 1 || t.count(kTo) != 1 || t.count(kValue) != 1)
        return std::nullopt;
    if (renderArgsTemplate(t, fromHex, toHex, value) != argsJson)
        return std::nullopt;
    return t;
}

QByteArray renderArgsTemplate(QByteArray tmpl, const QByteArray& fromHex, const QByteArray& toHex,
                              const QByteArray& value)
{
    return tmpl.replace(kFrom, fromHex).replace(kTo, toHex).replace(kValue, value);
}

} // namespace forkscope::indexer
