#include "WatchIndexerDialog.h"
#include "foreign/ForeignPreset.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>

namespace forkscope::ui {

WatchIndexerDialog::WatchIndexerDialog(QWidget* parent)
    : QDialog(parent), m_target(new QLineEdit(this)), m_preset(new QComboBox(this)),
      m_table(new QLineEdit(this)), m_query(new QPlainTextEdit(this)),
      m_confirmations(new QSpinBox(this)), m_contracts(new QLineEdit(this)),
      m_message(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Watch another indexer"));
    setObjectName(QStringLiteral("watchIndexerDialog"));
    auto* form = new QFormLayout(this);
    auto* intro = new QLabel(
        tr("Another indexer's ERC-20 Transfer table, audited every few seconds against the "
           "lab's node as `forkscope audit` does: its lag behind the lab's head and what it "
           "stored wrong. The database is only read."),
        this);
    intro->setWordWrap(true);
    form->addRow(intro);

    m_target->setPlaceholderText(tr("indexer.sqlite or postgresql://user@host:5432/db"));
    auto* browse = new QPushButton(tr("Browse..."), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("The indexer's SQLite file"));
        if (!file.isEmpty())
            m_target->setText(file);
    });
    auto* targetRow = new QHBoxLayout;
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(browse);
    form->addRow(tr("Database"), targetRow);

    m_preset->addItem(tr("none: my own query"), QString());
    for (const QString& name : foreign::presetNames())
        m_preset->addItem(name, name);
    connect(m_preset, &QComboBox::currentIndexChanged, this, &WatchIndexerDialog::presetChanged);
    form->addRow(tr("Preset"), m_preset);
    form->addRow(tr("Table"), m_table);
    m_query->setPlaceholderText(
        tr("SELECT block_number, log_index, contract, \"from\", \"to\", value FROM transfers"));
    m_query->setTabChangesFocus(true);
    m_query->setMaximumHeight(90);
    form->addRow(tr("Query"), m_query);
    m_confirmations->setRange(0, int(foreign::ForeignWatchSpec::kMaxConfirmations));
    m_confirmations->setToolTip(tr("The confirmations the indexer declares: blocks newer than "
                                   "the lab's head minus these are not audited."));
    form->addRow(tr("Confirmations"), m_confirmations);
    m_contracts->setPlaceholderText(tr("the lab's contracts"));
    m_contracts->setToolTip(tr("Token addresses, separated by spaces or commas; empty: the "
                               "lab environment's contracts."));
    form->addRow(tr("Contracts"), m_contracts);
    m_message->setObjectName(QStringLiteral("watchIndexerMessage"));
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b71c1c; font-weight: bold;"));
    m_message->hide();
    form->addRow(m_message);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Watch"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &WatchIndexerDialog::tryAccept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(m_buttons);
    presetChanged();
}

void WatchIndexerDialog::presetChanged()
{
    const QString preset = m_preset->currentData().toString();
    m_table->setEnabled(!preset.isEmpty());
    m_query->setEnabled(preset.isEmpty());
    const auto named = foreign::presetNamed(preset);
    m_table->setPlaceholderText(named ? foreign::defaultTable(*named) : tr("(with a preset)"));
}

foreign::ForeignWatchSpec WatchIndexerDialog::spec() const
{
    foreign::ForeignWatchSpec s;
    s.target = m_target->text().trimmed();
    s.preset = m_preset->currentData().toString();
    if (!s.preset.isEmpty())
        s.table = m_table->text().trimmed();
    else
        s.query = m_query->toPlainText().trimmed();
    s.confirmations = std::uint64_t(m_confirmations->value());
    static const QRegularExpression separators(QStringLiteral("[\\s,;]+"));
    s.contracts = m_contracts->text().split(separators, Qt::SkipEmptyParts);
    return s;
}

QString WatchIndexerDialog::message() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

void WatchIndexerDialog::tryAccept()
{
    const QString problem = foreign::validateWatchSpec(spec());
    if (!problem.isEmpty()) {
        m_message->setText(problem);
        m_message->show();
        return;
    }
    m_message->hide();
    accept();
}

} // namespace forkscope::ui
