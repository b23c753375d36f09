#pragma once

#include <QChar>
#include <QString>

namespace forkscope::test {

// The project's promise for bad input: one line naming what was wrong. A message that quotes
// a node's or a file's text must neither break the line (a control character could forge the
// next log line or drive the terminal) nor run on (a reply may hold megabytes).
inline bool isOneLine(const QString& message, qsizetype maxChars = 2000)
{
    if (message.isEmpty() || message.size() > maxChars)
        return false;
    for (const QChar c : message)
        if (c.category() == QChar::Other_Control && c != u'\t')
            return false;
    return true;
}

} // namespace forkscope::test
