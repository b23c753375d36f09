#pragma once

#include <QDateTime>
#include <QWidget>

#include <deque>

class QComboBox;
class QPlainTextEdit;

namespace forkscope::ui {

// The event log dock: every engine message with its level, filterable by minimum level.
// Bounded: the oldest entries go beyond kMaxEntries (it is a view, not an archive).
class EventLogView : public QWidget
{
    Q_OBJECT
public:
    explicit EventLogView(QWidget* parent = nullptr);

    // Levels: "error", "warning", "info"; "ok" and "fail" are invariant verdicts (shown in
    // green and red, at error priority so no filter hides them).
    void append(const QString& level, const QString& text);
    // 0 = all, 1 = warnings and errors, 2 = errors only.
    void setMinimumSeverity(int severity);
    int minimumSeverity() const;
    QStringList visibleLines() const;
    int entryCount() const { return int(m_entries.size()); }
    static constexpr int kMaxEntries = 5000;
    static int severity(const QString& level);

private:
    struct Entry
    {
        QDateTime at;
        QString level;
        QString text;
    };
    void render();
    void appendRendered(const Entry& e);

    std::deque<Entry> m_entries;
    QComboBox* m_filter;
    QPlainTextEdit* m_text;
};

} // namespace forkscope::ui
