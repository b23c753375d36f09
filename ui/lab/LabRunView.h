#pragma once

#include "lab/run/LabRunProgress.h"
#include "lab/run/LabRunResult.h"
#include "lab/run/LabRunSpec.h"

#include <QDialog>
#include <QPointer>
#include <functional>
#include <optional>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

// A lab run as it goes (Lab > Run lab scenario...): the scenario's steps, each with a
// progress bar (played; or, after a step that audits, the indexer's highest block against
// the block it must reach) and its audit's outcome; the counts so far; the live timeline;
// then the verdict, and Save JSON, JUnit and PDF. Cancel asks the engine to stop the run and
// everything it started. Fed by EngineApi's labRunProgress and labRunFinished only.
class LabRunView : public QDialog
{
    Q_OBJECT
public:
    enum Column { StepColumn, WhatColumn, ProgressColumn, AuditColumn };

    LabRunView(engine::EngineApi* host, const lab::LabRunSpec& spec, QWidget* parent = nullptr);

    QTableWidget* steps() const { return m_steps; }
    QProgressBar* stepBar(int step) const; // from 1
    QString timelineText() const;
    QString countsText() const;
    QString verdictText() const;
    QPushButton* cancelButton() const { return m_cancel; }
    const std::optional<lab::LabRunResult>& result() const { return m_result; }

    // Each writes the result once the run has finished; false, with the reason in
    // saveError(), when it cannot.
    bool saveJson(const QString& path);
    bool saveJunit(const QString& path);
    bool savePdf(const QString& path);
    QString saveError() const { return m_saveError; }

private:
    void onProgress(const lab::LabRunProgress& p);
    void onFinished(const lab::LabRunResult& r);
    bool save(const QString& path, const QByteArray& doc);
    void saveAs(const QString& title, const QString& filter,
                const std::function<bool(const QString&)>& write);

    QPointer<engine::EngineApi> m_host;
    lab::LabRunSpec m_spec;
    QLabel* m_header;
    QLabel* m_counts;
    QLabel* m_verdict;
    QTableWidget* m_steps;
    QPlainTextEdit* m_timeline;
    QPushButton* m_cancel;
    QList<QPushButton*> m_saveButtons;
    int m_audits = 0;      // seen so far
    qint64 m_findings = 0; // seen so far
    std::optional<lab::LabRunResult> m_result;
    QString m_saveError;
};

} // namespace forkscope::ui
