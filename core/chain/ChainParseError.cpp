#include "ChainParseError.h"

namespace forkscope::chain {

QString shownText(QStringView text, qsizetype maxChars)
{
    QStringView kept = text;
    if (maxChars >= 0 && text.size() > maxChars) {
        kept = text.first(maxChars);
        if (!kept.isEmpty() && kept.back().isHighSurrogate())
            kept.chop(1); // half a character would print as garbage
    }
    QString out;
    out.reserve(kept.size() + 2);
    for (const QChar c : kept) {
        if (c.category() != QChar::Other_Control) {
            out += c;
            continue;
        }
        switch (c.unicode()) {
        case u'\n':
            out += QLatin1String("\\n");
            break;
        case u'\r':
            out += QLatin1String("\\r");
            break;
        case u'\t':
            out += QLatin1String("\\t");
            break;
        default:
            out += QStringLiteral("\\u%1").arg(int(c.unicode()), 4, 16, QLatin1Char('0'));
        }
    }
    if (kept.size() < text.size())
        out += QStringLiteral("...(%1 chars)").arg(text.size());
    return out;
}

ChainParseError::ChainParseError(const QString& field, const QString& value, const QString& reason)
    // A malicious or broken node can send megabytes, and a reason may quote one of its
    // characters: the message stays one readable line.
    : std::runtime_error(QStringLiteral("field \"%1\": %2, got %3")
                             .arg(shownText(field, -1), shownText(reason, -1), shownText(value))
                             .toStdString()),
      m_field(field), m_value(value), m_reason(reason)
{
}

} // namespace forkscope::chain
