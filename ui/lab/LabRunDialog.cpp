#include "LabRunDialog.h"
#include "LabRunView.h"
#include "engine/EngineApi.h"
#include "foreign/ForeignPreset.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace forkscope::ui {

namespace {

// The labels the error lines name, as the form shows them.
lab::LabRunInput::FieldNames fieldNames()
{
    lab::LabRunInput::FieldNames n;
    n.indexer = LabRunDialog::tr("Indexer command");
    n.scenario = LabRunDialog::tr("Scenario");
    n.seed = LabRunDialog::tr("Seed");
    n.confirmations = LabRunDialog::tr("Confirmations");
    n.catchUpTimeoutMs = LabRunDialog::tr("Catch-up timeout");
    n.query = LabRunDialog::tr("Query");
    n.preset = LabRunDialog::tr("Preset");
    n.table = LabRunDialog::tr("Table");
    return n;
}

std::optional<QString> givenText(const QString& text)
{
    return text.trimmed().isEmpty() ? std::nullopt : std::optional(text.trimmed());
}

} // namespace

LabRunDialog::LabRunDialog(engine::EngineApi* host, QWidget* parent) : QDialog(parent), m_host(host)
{
    setObjectName(QStringLiteral("labRunDialog"));
    setWindowTitle(tr("Run lab scenario"));
    auto* intro = new QLabel(
        tr("Starts another indexer against a lab of its own (a managed anvil behind a fault "
           "proxy), plays a seeded scenario of reorgs and faults, and audits the indexer's "
           "table against the chain after each step. Everything the run starts is stopped "
           "at its end."),
        this);
    intro->setWordWrap(true);
    m_indexer = new QLineEdit(this);
    m_indexer->setPlaceholderText(tr("e.g. exec bash resources/indexers/ponder/run.sh"));
    m_indexer->setToolTip(tr("Run under /bin/sh. It gets the node in FORKSCOPE_RPC and {rpc}, "
                             "the contracts in FORKSCOPE_CONTRACTS, the database in "
                             "DATABASE_URL (docs/lab-run.md)."));
    m_scenario = new QComboBox(this);
    m_scenario->addItems(lab::labScenarioNames());
    m_seed = new QLineEdit(QStringLiteral("1"), this);
    m_seed->setToolTip(tr("The same seed plays the same steps"));
    m_confirmations = new QLineEdit(QStringLiteral("0"), this);
    m_confirmations->setToolTip(tr("Blocks the indexer waits before storing one: it has "
                                   "caught up at the head minus these"));
    m_timeout = new QLineEdit(QStringLiteral("120000"), this);
    m_timeout->setToolTip(tr("Milliseconds to wait for the indexer to catch up before each "
                             "audit"));
    m_audit = new QComboBox(this);
    m_audit->addItem(tr("My query"));
    for (const QString& p : foreign::presetNames())
        m_audit->addItem(tr("Preset: %1").arg(p), p);
    m_query = new QPlainTextEdit(this);
    m_query->setPlaceholderText(tr("SELECT block_number, log_index, contract, \"from\", \"to\", "
                                   "value FROM ... (one row per Transfer, docs/audit.md)"));
    m_query->setTabChangesFocus(true);
    m_query->setMaximumHeight(90);
    m_table = new QLineEdit(this);
    m_database = new QLineEdit(this);
    m_database->setPlaceholderText(tr("a throwaway PostgreSQL cluster"));
    m_database->setToolTip(tr("Where the indexer stores: a postgresql:// URL or a SQLite file"));
    m_receipts = new QCheckBox(tr("Audit with the receipts-root proof too"), this);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("labRunMessage"));
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020"));
    m_message->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("Indexer command:"), m_indexer);
    form->addRow(tr("Scenario:"), m_scenario);
    form->addRow(tr("Seed:"), m_seed);
    form->addRow(tr("Confirmations:"), m_confirmations);
    form->addRow(tr("Catch-up timeout (ms):"), m_timeout);
    form->addRow(tr("Audit:"), m_audit);
    form->addRow(tr("Query:"), m_query);
    form->addRow(tr("Table:"), m_table);
    form->addRow(tr("Database:"), m_database);
    form->addRow(QString(), m_receipts);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &LabRunDialog::tryStart);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_audit, &QComboBox::currentIndexChanged, this, &LabRunDialog::showChoice);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);
    showChoice();
}

QString LabRunDialog::message() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

void LabRunDialog::showChoice()
{
    const bool own = m_audit->currentIndex() == kOwnQuery;
    m_query->setEnabled(own);
    m_table->setEnabled(!own);
    const auto preset = foreign::presetNamed(m_audit->currentData().toString());
    m_table->setPlaceholderText(preset ? foreign::defaultTable(*preset) : QString());
}

lab::LabRunInput LabRunDialog::input() const
{
    lab::LabRunInput in;
    in.indexer = m_indexer->text(); // given, if empty: the check says it is required
    in.scenario = m_scenario->currentText();
    in.seed = givenText(m_seed->text());
    in.confirmations = givenText(m_confirmations->text());
    in.catchUpTimeoutMs = givenText(m_timeout->text());
    if (m_audit->currentIndex() == kOwnQuery) {
        in.query = m_query->toPlainText();
    } else {
        in.preset = m_audit->currentData().toString();
        in.table = givenText(m_table->text());
    }
    in.database = givenText(m_database->text());
    in.receipts = m_receipts->isChecked();
    return in;
}

void LabRunDialog::tryStart()
{
    const auto fail = [this](const QString& line) {
        m_message->setText(line);
        m_message->show();
    };
    QString error;
    const std::optional<lab::LabRunSpec> spec = input().check(&error, fieldNames());
    if (!spec)
        return fail(error);
    if (!m_host)
        return fail(tr("The engine is gone: restart Forkscope"));
    if (!m_host->startLabRun(*spec))
        return fail(tr("A lab run is already going on: cancel it or wait for its verdict"));
    m_message->hide();
    // The view follows the run; it belongs to the window, not to this dialog.
    auto* view = new LabRunView(m_host, *spec, parentWidget());
    view->show();
    accept();
}

} // namespace forkscope::ui
