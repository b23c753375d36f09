#include "JsonLinesSink.h"
#include "text/Count.h"

#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace forkscope::outbox {

DeliveryResult JsonLinesSink::deliver(const QList<OutboxRow>& rows)
{
    if (!m_file.isOpen()) {
        m_file.setFileName(m_path);
        // Unbuffered: a failed write leaves nothing in a Qt buffer that a later flush or
        // close could still append behind the cut-back below. Append to a file (new or
        // not); a pipe or device that exists is just written to (it cannot seek).
        const QFileInfo info(m_path);
        QIODevice::OpenMode mode = QIODevice::WriteOnly | QIODevice::Unbuffered;
        if (!info.exists() || info.isFile())
            mode |= QIODevice::Append;
        if (!m_file.open(mode))
            return {DeliveryResult::Outcome::Retry,
                    QStringLiteral("cannot open %1: %2").arg(m_path, m_file.errorString())};
    }
    QByteArray lines;
    for (const OutboxRow& row : rows)
        lines += rowEnvelope(row) + '\n';
    const qint64 before = m_file.isSequential() ? -1 : m_file.size();
    QString error;
    if (m_file.write(lines) != lines.size() || !m_file.flush())
        error = m_file.errorString();
    else if (!m_file.isSequential() && ::fsync(m_file.handle()) != 0)
        // A pipe or terminal (--outbox-file /dev/stdout) has nothing to sync.
        error = QStringLiteral("fsync: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
    if (error.isEmpty())
        return {DeliveryResult::Outcome::Delivered, {}};
    // None of the batch counts as written: cut back what did reach the file, so a retry
    // appends the batch whole after the last confirmed line, never after a torn one.
    const bool cutBack = before >= 0 && m_file.resize(before);
    m_file.close();
    return {DeliveryResult::Outcome::Retry,
            QStringLiteral("write of %1 to %2 failed: %3%4")
                .arg(text::count(rows.size(), QStringLiteral("outbox row"),
                                 QStringLiteral("outbox rows")),
                     m_path, error,
                     cutBack ? QString()
                             : QStringLiteral(" (and the partial write could not be cut back: "
                                              "the file may end in a torn line)"))};
}

} // namespace forkscope::outbox
