#include "LabRunView.h"
#include "engine/EngineApi.h"
#include "report/LabRunPdfWriter.h"
#include "report/ReportError.h"
#include "text/Count.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QTableWidget>
#include <QVBoxLayout>
#include <climits>

namespace forkscope::ui {

namespace {

constexpr int kTimelineLines = 5000; // the view's bound; the saved result keeps them all

QString auditText(const lab::LabRunAudit& a)
{
    if (!a.error.isEmpty())
        return LabRunView::tr("could not audit");
    QStringList parts;
    if (!a.caughtUp)
        parts << LabRunView::tr("did not catch up");
    if (a.result)
        parts << (a.result->clean()
                      ? LabRunView::tr("clean")
                      : text::count(a.result->findingCount(), LabRunView::tr("finding"),
                                    LabRunView::tr("findings")));
    return parts.join(QStringLiteral(", "));
}

} // namespace

LabRunView::LabRunView(engine::EngineApi* host, const lab::LabRunSpec& spec, QWidget* parent)
    : QDialog(parent), m_host(host), m_spec(spec)
{
    setObjectName(QStringLiteral("labRunView"));
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Lab run: %1").arg(lab::labScenarioName(spec.scenario)));
    m_header = new QLabel(tr("%1, seed %2: setting up the lab")
                              .arg(lab::labScenarioName(spec.scenario))
                              .arg(spec.seed),
                          this);
    m_counts = new QLabel(this);
    m_verdict = new QLabel(tr("Running..."), this);
    m_verdict->setObjectName(QStringLiteral("labRunVerdict"));
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_verdict->setWordWrap(true);

    const QList<lab::LabStep> plan = lab::planLabScenario(spec.scenario, spec.seed);
    m_steps = new QTableWidget(int(plan.size()), 4, this);
    m_steps->setHorizontalHeaderLabels({tr("Step"), tr("What"), tr("Progress"), tr("Audit")});
    m_steps->verticalHeader()->hide();
    m_steps->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_steps->horizontalHeader()->setSectionResizeMode(WhatColumn, QHeaderView::Stretch);
    for (int i = 0; i < plan.size(); ++i) {
        m_steps->setItem(i, StepColumn, new QTableWidgetItem(QString::number(i + 1)));
        m_steps->setItem(i, WhatColumn, new QTableWidgetItem(plan[i].describe()));
        m_steps->setItem(
            i, AuditColumn,
            new QTableWidgetItem(plan[i].audit ? tr("waits, then audits") : QString()));
        auto* bar = new QProgressBar(m_steps);
        bar->setRange(0, 1);
        bar->setValue(0);
        m_steps->setCellWidget(i, ProgressColumn, bar);
    }
    m_timeline = new QPlainTextEdit(this);
    m_timeline->setReadOnly(true);
    m_timeline->setMaximumBlockCount(kTimelineLines);
    m_timeline->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto* buttons = new QDialogButtonBox(this);
    m_cancel = buttons->addButton(tr("Cancel run"), QDialogButtonBox::RejectRole);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_host)
            m_host->cancelLabRun();
        m_cancel->setEnabled(false);
        m_verdict->setText(tr("Stopping everything the run started..."));
    });
    const auto addSave = [&](const QString& text, const QString& title, const QString& filter,
                             bool (LabRunView::*write)(const QString&)) {
        QPushButton* b = buttons->addButton(text, QDialogButtonBox::ActionRole);
        b->setEnabled(false);
        connect(b, &QPushButton::clicked, this, [this, title, filter, write] {
            saveAs(title, filter, [this, write](const QString& p) { return (this->*write)(p); });
        });
        m_saveButtons << b;
    };
    addSave(tr("Save JSON..."), tr("Save the lab run as JSON"), tr("JSON (*.json)"),
            &LabRunView::saveJson);
    addSave(tr("Save JUnit..."), tr("Save the lab run as JUnit XML"), tr("JUnit XML (*.xml)"),
            &LabRunView::saveJunit);
    addSave(tr("Save PDF..."), tr("Save the lab run as PDF"), tr("PDF (*.pdf)"),
            &LabRunView::savePdf);
    QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
    connect(close, &QPushButton::clicked, this, &QDialog::close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_counts);
    layout->addWidget(m_steps, 2);
    layout->addWidget(m_timeline, 3);
    layout->addWidget(m_verdict);
    layout->addWidget(buttons);
    resize(820, 640);

    connect(host, &engine::EngineApi::labRunProgress, this, &LabRunView::onProgress);
    connect(host, &engine::EngineApi::labRunFinished, this, &LabRunView::onFinished);
}

QProgressBar* LabRunView::stepBar(int step) const
{
    return qobject_cast<QProgressBar*>(m_steps->cellWidget(step - 1, ProgressColumn));
}

QString LabRunView::timelineText() const
{
    return m_timeline->toPlainText();
}

QString LabRunView::countsText() const
{
    return m_counts->text();
}

QString LabRunView::verdictText() const
{
    return m_verdict->text();
}

void LabRunView::onProgress(const lab::LabRunProgress& p)
{
    if (m_result)
        return; // another run's: this one is over
    if (p.event)
        m_timeline->appendPlainText(lab::labRunEventLine(*p.event));
    if (p.step > 0)
        m_header->setText(tr("%1, seed %2: step %3 of %4%5")
                              .arg(lab::labScenarioName(m_spec.scenario))
                              .arg(m_spec.seed)
                              .arg(p.step)
                              .arg(p.steps)
                              .arg(p.waiting ? tr(", waiting for the indexer") : QString()));
    for (int step = 1; step < p.step; ++step)
        if (QProgressBar* bar = stepBar(step)) {
            if (bar->maximum() == 0)
                bar->setRange(0, 1); // it was busy: played
            bar->setValue(bar->maximum());
        }
    if (QProgressBar* bar = stepBar(p.step)) {
        if (p.waiting) {
            // The indexer's highest block against the block it must reach.
            bar->setRange(0, int(std::min<quint64>(p.targetBlock, INT_MAX)));
            bar->setValue(int(std::min<quint64>(p.indexerBlock.value_or(0), p.targetBlock)));
            bar->setFormat(
                tr("block %1 of %2")
                    .arg(p.indexerBlock ? QString::number(*p.indexerBlock) : QStringLiteral("-"))
                    .arg(p.targetBlock));
        } else if (p.audits > m_audits) {
            bar->setRange(0, 1);
            bar->setValue(1);
        } else if (bar->value() < bar->maximum()) {
            bar->setRange(0, 0); // being played
        }
    }
    if (p.audits > m_audits && p.step > 0) {
        const qint64 found = p.findings - m_findings;
        if (QTableWidgetItem* item = m_steps->item(p.step - 1, AuditColumn))
            item->setText(found == 0 ? tr("clean")
                                     : text::count(found, tr("finding"), tr("findings")));
    }
    m_audits = p.audits;
    m_findings = p.findings;
    m_counts->setText(tr("Audits: %1 (%2 clean). Findings: %3.")
                          .arg(p.audits)
                          .arg(p.cleanAudits)
                          .arg(p.findings));
}

void LabRunView::onFinished(const lab::LabRunResult& r)
{
    if (m_result)
        return;
    m_result = r;
    // The timeline as the run kept it: lines this view had not seen (a run that could not
    // start) are there too.
    m_timeline->clear();
    for (const lab::LabRunEvent& e : r.timeline)
        m_timeline->appendPlainText(lab::labRunEventLine(e));
    for (const lab::LabRunAudit& a : r.audits) {
        if (QTableWidgetItem* item = m_steps->item(a.step - 1, AuditColumn))
            item->setText(auditText(a));
        if (QProgressBar* bar = stepBar(a.step)) {
            bar->setRange(0, 1);
            bar->setValue(1);
            bar->resetFormat();
        }
    }
    // A bar still busy is a step the run stopped in.
    for (int step = 1; step <= m_steps->rowCount(); ++step)
        if (QProgressBar* bar = stepBar(step); bar && bar->maximum() == 0)
            bar->setRange(0, 1);
    m_verdict->setText(r.verdictLine());
    m_verdict->setStyleSheet(r.passed() ? QStringLiteral("color: #1b7a1b")
                                        : QStringLiteral("color: #b00020"));
    m_cancel->setEnabled(false);
    for (QPushButton* b : std::as_const(m_saveButtons))
        b->setEnabled(true);
}

bool LabRunView::save(const QString& path, const QByteArray& doc)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(doc) != doc.size() || !f.commit()) {
        m_saveError = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool LabRunView::saveJson(const QString& path)
{
    if (!m_result) {
        m_saveError = tr("The run has not finished yet");
        return false;
    }
    return save(path, lab::labRunJson(*m_result));
}

bool LabRunView::saveJunit(const QString& path)
{
    if (!m_result) {
        m_saveError = tr("The run has not finished yet");
        return false;
    }
    return save(path, lab::labRunJunit(*m_result));
}

bool LabRunView::savePdf(const QString& path)
{
    if (!m_result) {
        m_saveError = tr("The run has not finished yet");
        return false;
    }
    try {
        LabRunPdfWriter::write(*m_result, path);
        return true;
    } catch (const report::ReportError& e) {
        m_saveError = e.message();
        return false;
    }
}

void LabRunView::saveAs(const QString& title, const QString& filter,
                        const std::function<bool(const QString&)>& write)
{
    const QString path = QFileDialog::getSaveFileName(this, title, QString(), filter);
    if (path.isEmpty())
        return;
    if (!write(path))
        m_verdict->setText(m_result->verdictLine() + QStringLiteral("\n") + m_saveError);
}

} // namespace forkscope::ui
