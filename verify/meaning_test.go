package verify

import (
	"strings"
	"testing"
)

// meaningCase is a claim, the sentence it cites, and the reason the
// meaning checks must give ("" for none: the positive twin).
type meaningCase struct {
	name, claim, evidence, want string
}

var meaningCases = []meaningCase{
	// polarity
	{"negation dropped", "The policy covers flood damage.", "This policy does not cover flood damage.", reasonPolarity},
	{"negation dropped twin", "The policy does not cover flood damage.", "This policy does not cover flood damage.", ""},
	{"negation added", "The policy does not cover fire damage.", "This policy covers fire damage to the insured building.", reasonPolarity},
	{"negation added twin", "The policy covers fire damage.", "This policy covers fire damage to the insured building.", ""},
	{"excluded vs covered", "Flood damage is covered.", "Flood damage is excluded.", reasonPolarity},
	{"excluded twin", "Flood damage is not covered.", "Flood damage is excluded.", ""},
	{"negation moved", "Employees may not approve their own expenses.", "No employee may approve their own expenses.", ""},
	{"double negation", "Late reports are not reimbursed without CFO approval.", "Late reports are reimbursed only with the approval of the CFO.", ""},
	{"contrast clause", "The policy covers flood damage.", "The policy covers fire damage but does not cover flood damage.", reasonPolarity},
	{"contrast clause twin", "The policy covers fire damage.", "The policy covers fire damage but does not cover flood damage.", ""},
	{"no later than is no negation", "Reports are due within 30 days.", "Reports are due no later than 30 days after the trip.", ""},
	{"not only", "The fee covers hosting and support.", "The fee covers not only hosting but also support.", ""},
	{"contraction", "The insurer pays for wear and tear.", "The insurer doesn't pay for wear and tear.", reasonPolarity},
	{"whether or not", "The fee is payable.", "The fee is payable whether or not the service is used.", ""},
	// outside answers (corpus/outside): each precision rule and its twin
	{"whether asks", "By default, the go command does not follow symlinks when embedding files.", "The setting controls whether the go command will follow symlinks when embedding files.", ""},
	{"whether asks twin", "The go command follows symlinks when embedding files.", "The go command does not follow symlinks when embedding files.", reasonPolarity},
	{"negation of the predicate, not its object", "Python scripts should not use python as the interpreter name, even if they work with any Python version.", "Python scripts should not specify python as the interpreter name even if they do not require any particular version of Python as the script would stop working.", ""},
	{"negation of the predicate twin", "The scripts require a particular version.", "The scripts do not require a particular version.", reasonPolarity},
	{"partial negation", "In the exit event, code and signal are never both null.", "If the process exited, code is the final exit code of the process, otherwise null.", ""},
	{"partial negation twin", "In the exit event, the code is never null.", "In the exit event, the code is null.", reasonPolarity},
	{"conjunction before a modal ends the scope", "Reports that violate the code of conduct may result in being banned.", "Reports that violate our code of conduct will not be considered and may result in being banned.", ""},
	{"heading run into the sentence", "No mandate Section 1201 requires manufacturers to respond to any technological measure.", "No mandate\n\nSection 1201 requires manufacturers to respond to any technological measure.", ""},
	{"heading twin", "Section 1201 does not require manufacturers to respond.", "Section 1201 requires manufacturers to respond.", reasonPolarity},
	{"negated trend word", "Existing Python 2 libraries must be dropped before the last reverse dependency is removed.", "Existing Python 2 libraries must not be dropped before the last reverse dependency is removed.", reasonPolarity},
	{"negated trend word twin", "Existing Python 2 libraries must not be dropped before the last reverse dependency is removed.", "Existing Python 2 libraries must not be dropped before the last reverse dependency is removed.", ""},
	{"the negation the other side lacks", "File triggers should generally be used without mutual consent.", "File triggers should not generally be used without mutual consent.", reasonPolarity},
	{"the negation the other side lacks twin", "File triggers should not generally be used without mutual consent.", "File triggers should not generally be used without mutual consent of the packages.", ""},
	{"conjunction twin", "Reports that violate the code of conduct will be considered.", "Reports that violate our code of conduct will not be considered and may result in being banned.", reasonPolarity},
	// correct rewordings an outside writer uses: none may be flagged
	{"passive for active", "The loan shall be repaid by the Borrower on the maturity date.", "The Borrower shall repay the loan on the maturity date.", ""},
	{"not any for no", "The Agent does not have any duty to monitor compliance.", "The Agent has no duty to monitor compliance.", ""},
	{"with no for without", "Reports are approved with no second review.", "Reports are approved without a second review.", ""},
	{"neither nor", "Neither the Agent nor the Arranger is liable for the accuracy of the information.", "The Agent is not liable for the accuracy of the information, and the Arranger is not liable either.", ""},
	{"fails to", "If the Borrower does not pay on the due date, an event of default occurs.", "An event of default occurs if the Borrower fails to pay on the due date.", ""},
	{"none of", "None of the fees are refundable.", "The fees are not refundable.", ""},
	{"never for not ever", "Customer data is never stored on personal devices.", "Customer data may not be stored on personal devices at any time.", ""},
	{"prohibited for may not", "Storing customer data on USB drives is prohibited.", "Customer data may not be stored on USB drives.", ""},
	{"only for nothing but", "Only approved systems may hold customer data.", "Customer data may be held in approved systems only.", ""},
	{"unless restated", "Water damage is covered unless the property is in Flood Zone 3.", "Unless the property lies in Flood Zone 3, water damage is covered.", ""},
	{"at most for up to", "The allowance is at most EUR 75 per day.", "The allowance is up to EUR 75 per day.", ""},
	{"no later than for within", "Claims must be filed within 30 days of the loss.", "Claims must be filed no later than 30 days after the loss.", ""},
	{"minimum for at least", "The minimum balance is EUR 1,000.", "The balance must be at least EUR 1,000.", ""},
	{"increase for rise", "Operating costs increased in 2024.", "Operating costs rose by 4% in 2024.", ""},
	{"yearly for annual", "The fee is charged yearly.", "An annual fee is charged.", ""},
	{"answer opening with No", "No, the policy does not cover flood damage.", "This policy does not cover flood damage.", ""},
	{"answer opening with Yes", "Yes, the policy covers fire damage.", "This policy covers fire damage to the insured building.", ""},
	{"cannot exceed", "The Net Leverage Ratio cannot exceed 3.25 to 1.00.", "The Net Leverage Ratio shall not exceed 3.25 to 1.00.", ""},
	{"cannot be less than", "The ratio cannot be less than 4.00 to 1.00.", "The ratio shall not be less than 4.00 to 1.00.", ""},
	{"quoted defined term", "The \"Net Leverage Ratio\" must not exceed 3.25x.", "The Net Leverage Ratio shall not exceed 3.25 to 1.00.", ""},
	{"no longer", "SMS codes are no longer accepted.", "Text messages are not accepted for any account since 2024-10-01.", ""},
	{"annually for per year", "The commitment fee is 0.35% annually.", "A commitment fee of 0.35% per year accrues on the unused commitments.", ""},
	{"have to for must", "Administrators have to use hardware keys.", "Administrators must use a hardware key.", ""},
	{"not allowed for never approved", "It is not allowed to store customer data on USB drives.", "Personal devices, personal cloud accounts and USB drives are never approved.", ""},
	{"neither nor for not or", "The policy covers neither flood nor earthquake damage.", "This policy does not cover flood damage or earthquake damage.", ""},
	{"raised", "The facility was raised to USD 75,000,000.", "Amendment No. 1 raised the Revolving Credit Facility from USD 60,000,000 to USD 75,000,000.", ""},
	{"raised for reduced", "Amendment No. 1 raised the commitment fee to 0.35%.", "Amendment No. 1 reduced the commitment fee from 0.40% to 0.35%.", reasonDirection},
	// direction
	{"bound flipped", "The leverage ratio must not exceed 4.00:1.", "The leverage ratio shall not be less than 4.00:1.", reasonDirection},
	{"bound twin", "The leverage ratio must not exceed 4.00:1.", "The leverage ratio shall not exceed 4.00:1.", ""},
	{"bound reworded", "The ratio may be at most 3.25 to 1.00.", "The Net Leverage Ratio shall not exceed 3.25 to 1.00.", ""},
	{"at least vs maximum", "Leverage must be at least 3.25 to 1.00.", "The Net Leverage Ratio shall not exceed 3.25 to 1.00.", reasonDirection},
	{"trend flipped", "Revenue fell in 2024.", "Revenue rose in 2024 on higher volumes.", reasonDirection},
	{"a bound after its number", "The late charge has a $15 floor and a $100 cap.", "The late charge is 4.0% of the payment, but not less than $15.00 and not more than $100.00.", ""},
	{"a bound after its number, swapped", "The late charge has a $100 floor and a $15 cap.", "The late charge is 4.0% of the payment, but not less than $15.00 and not more than $100.00.", reasonDirection},
	{"or above binds its own number", "A senior clinician should review the patient within 15 minutes.", "| Senior clinician review (ST3 or above) | 15 minutes | ED Nurse in Charge |", ""},
	{"or above binds its own number, twin", "A senior clinician should review the patient in at least 15 minutes.", "A senior clinician (ST3 or above) shall review the patient within 15 minutes.", reasonDirection},
	{"a lead time in earlier and later", "Notice must be given no earlier than 15 months and no later than 9 months before expiration.", "The Franchisee must give notice at least 9 months but not more than 15 months before expiration.", ""},
	{"a lead time in earlier and later, swapped", "Notice must be given no later than 15 months and no earlier than 9 months before expiration.", "The Franchisee must give notice at least 9 months but not more than 15 months before expiration.", reasonDirection},
	{"or higher is no rise", "If lactate falls by less than a tenth from its initial value, that is a failure to respond.", "Lactate shall be repeated within 2 hours if the initial value was 2.0 mmol/L or higher. A fall of less than 10% from the initial value is treated as a failure to respond.", ""},
	{"or higher is no rise, twin", "Lactate rose after the first bolus.", "Lactate fell after the first bolus to 2.0 mmol/L or higher.", reasonDirection},
	{"a period said of the same things elsewhere", "The first principal-and-interest payment is $2,348.37 a month, and the total monthly payment also includes the escrow items.", "2.1 Interest will be charged on unpaid Principal until the full amount has been paid. I will pay interest at a yearly rate of 6.125% (the \"Initial Rate\") until the First Change Date.\n\n3.1 I will pay principal and interest by making a payment every month on the first day of each month beginning on August 1, 2034.\n\n3.2 My initial monthly payment of principal and interest will be U.S. $2,348.37. My total monthly payment will also include the Escrow Items described in Section 8.", ""},
	{"a period said of the same things elsewhere, twin", "The first principal and interest payment is $2,348.37 a year.", "I will pay interest on the principal at a monthly rate of 0.5%. My initial monthly payment of principal and interest will be $2,348.37.", reasonPeriod},
	{"an opposite with an exception after it", "The only collateral defense a Guarantor keeps is one arising from the Lender's gross negligence.", "Each Guarantor waives any collateral defense, other than a defense arising from the Lender's gross negligence.", reasonPolarityUnconfirmed},
	{"an opposite with an exception after it, twin", "A Guarantor keeps its collateral defenses.", "Each Guarantor waives any collateral defense.", reasonAntonym},
	{"an opposite after the exception", "Unless the Board objects, the Guarantor keeps its collateral defenses.", "Unless the Board objects, each Guarantor waives its collateral defenses.", reasonAntonym},
	{"a party defined after its seat", "Quillmoor Mutual Insurance Company is the Reinsured under the treaty.", "Between Quillmoor Mutual Insurance Company, of Bramford (the \"Reinsured\"), and the reinsurers subscribing through Ostrander Re Brokers Ltd (the \"Intermediary\").", ""},
	{"a party defined after its seat, swapped", "Ostrander Re Brokers Ltd is the Reinsured under the treaty.", "Between Quillmoor Mutual Insurance Company, of Bramford (the \"Reinsured\"), and the reinsurers subscribing through Ostrander Re Brokers Ltd (the \"Intermediary\").", reasonRole},
	{"an acronym's X for ex", "ECO and XPL losses count toward Ultimate Net Loss only up to 90% of their amount.", "Extra-contractual obligations and losses in excess of policy limits are included in Ultimate Net Loss only up to 90% of their amount.", ""},
	{"an acronym's X for ex, twin", "ECO and XPS losses count toward Ultimate Net Loss only up to 90% of their amount.", "Extra-contractual obligations and losses in excess of policy limits are included in Ultimate Net Loss only up to 90% of their amount.", reasonName},
	{"or sooner by condition", "Referral to the clinic should come earlier than three months on four agents if hypokalemia persists.", "Refer to the clinic if BP remains above target after 3 months on four agents, or sooner if hypokalemia persists.", ""},
	{"or sooner by condition, twin", "Referral to the clinic should come earlier than three months on four agents.", "Refer to the clinic if BP remains above target after 3 months on four agents.", reasonDirection},
	{"a modal of another clause's verb", "The roller clamp has to be closed before the pump door is opened, since opening the door with the clamp open can cause free flow.", "Opening the door with the clamp open may cause uncontrolled free flow and serious injury.", ""},
	{"a modal of another clause's verb, twin", "The roller clamp has to be closed before the pump door is opened.", "The roller clamp may be closed before the pump door is opened.", reasonModality},
	{"a trade name for a designated part", "Side A has no retention, whereas Side B carries a retention of USD 250,000 per Claim.", "| Retention: Insuring Agreement A | None |\n| Retention: Insuring Agreement B | USD 250,000 each Claim |", ""},
	{"a trade name for a designated part, twin", "Under the policy, Side D has no retention.", "| Retention: Insuring Agreement A | None |\n| Retention: Insuring Agreement B | USD 250,000 each Claim |", reasonName},
	{"a bound an exception turns around, restated with only", "Cash may exceed 10% of NAV only during the 30 days after a large withdrawal.", "Cash and cash equivalents do not exceed 10 per cent. of NAV, except during the 30 days following a large withdrawal.", reasonPolarityUnconfirmed},
	{"a bound an exception turns around, twin", "Cash may exceed 10% of NAV during the 30 days after a large withdrawal.", "Cash and cash equivalents do not exceed 10% of NAV during the 30 days following a large withdrawal.", reasonDirection},
	{"a proviso is what one must do", "To withhold a disputed sum, the Licensee must give written notice of the dispute within 20 days of the invoice date.", "The Licensee may withhold a disputed amount in good faith, provided that it notifies the Licensor of the dispute in writing within 20 days of the invoice date.", ""},
	{"a proviso is no obligation of the right itself", "If a covenant is breached, the Borrower is required to cure it by procuring New Shareholder Injections.", "If a covenant is breached, the Borrower may cure the breach by procuring New Shareholder Injections, provided that the cure right may not be exercised in consecutive periods.", reasonModality},
	{"a proviso is what one must do, twin", "The Licensee must give written notice of the dispute within 20 days of the invoice date.", "The Licensee may give written notice of the dispute within 20 days of the invoice date.", reasonModality},
	{"never less than is a floor", "The GP has to commit never less than USD 7.5 million.", "The General Partner shall make a Commitment of at least 1.5% of total Commitments, and in any case not less than USD 7.5 million.", ""},
	{"never less than is a floor, twin", "The GP has to commit never more than USD 7.5 million.", "The General Partner shall make a Commitment of at least 1.5% of total Commitments, and in any case not less than USD 7.5 million.", reasonDirection},
	{"a subject's no turns the bound", "A single portfolio company cannot receive more than 20% of total commitments.", "No single Portfolio Company shall receive, at the time of investment, more than 20% of total Commitments.", ""},
	{"a subject's no turns the bound, twin", "A single portfolio company must receive more than 20% of total commitments.", "No single Portfolio Company shall receive, at the time of investment, more than 20% of total Commitments.", reasonDirection},
	{"at least every is an interval's cap", "A stable INR has to be checked at least every four weeks.", "Once the INR is stable, it shall be checked at intervals of not more than 4 weeks.", ""},
	{"at least every is an interval's cap, twin", "A stable INR has to be checked at intervals of at least four weeks.", "Once the INR is stable, it shall be checked at intervals of not more than 4 weeks.", reasonDirection},
	{"a passive's be is no word", "A single change to the weekly dose should not exceed 20%.", "The weekly dose shall not be changed by more than 20% at a time.", ""},
	{"a passive's be is no word, twin", "A single change to the weekly dose should be at least 20%.", "The weekly dose shall not be changed by more than 20% at a time.", reasonDirection},
	{"the nearer bound is the number's", "The notice is handed over within 36 hours of admission.", "The notice must be delivered no later than 36 hours after admission.", ""},
	{"the nearer bound is the number's, twin", "The notice is handed over after at least 36 hours of admission.", "The notice must be delivered no later than 36 hours after admission.", reasonDirection},
	{"cannot until is only after", "Dabigatran cannot be started until the patient has had at least five days of parenteral anticoagulation.", "Dabigatran may be started only after at least 5 days of parenteral anticoagulation.", reasonPolarityUnconfirmed},
	{"cannot until is only after, twin", "Dabigatran cannot be started after five days of parenteral anticoagulation.", "Dabigatran may be started after at least 5 days of parenteral anticoagulation.", reasonPolarity},
	{"entitled to after a noun is no modal", "The consent must be signed by the holders of all outstanding shares.", "Action may be taken without a meeting only if a consent in writing is signed by the holders of all outstanding shares entitled to vote.", reasonModalityUnconfirmed},
	{"entitled to after be is a modal", "Each stockholder must vote at the meeting.", "Each stockholder is entitled to vote at the meeting.", reasonModality},
	{"a quarter hour is no quarter", "Data loggers record the temperature every quarter hour, around the clock.", "Data loggers shall record the temperature at intervals of 15 minutes, 24 hours a day.", ""},
	{"a quarter hour is no quarter, twin", "Data loggers record the temperature every quarter.", "Data loggers shall record the temperature once a day.", reasonPeriod},
	{"lasts is no last", "The initial term lasts until the 10th anniversary of the opening date.", "The initial term expires on the tenth (10th) anniversary of the date the Restaurant first opens for business.", ""},
	{"lasts is no last, twin", "The fee is charged on the last day of the term.", "The fee is charged on the first day of the term.", reasonAntonym},
	{"a cap said at any time", "Agency debentures count only up to 30% of the Posted Credit Support.", "Agency debentures shall not at any time exceed 30% of the Posted Credit Support.", ""},
	{"a cap said at any time, flipped", "Agency debentures must be at least 30% of the Posted Credit Support.", "Agency debentures shall not at any time exceed 30% of the Posted Credit Support.", reasonDirection},
	{"trend twin", "Revenue increased in 2024.", "Revenue rose in 2024 on higher volumes.", ""},
	{"timing flipped", "Notice must be given 30 days after the renewal date.", "Notice must be given 30 days before the renewal date.", reasonDirection},
	{"timing twin", "Notice is due 30 days prior to the renewal date.", "Notice must be given 30 days before the renewal date.", ""},
	// period
	{"period changed", "The premium is payable annually.", "The premium is payable quarterly in advance.", reasonPeriod},
	{"period twin", "The premium is paid every quarter.", "The premium is payable quarterly in advance.", ""},
	{"annual report is no period", "The annual report shows the premium is payable quarterly.", "The premium is payable quarterly in advance.", ""},
	{"per annum", "Interest accrues at 5% per year.", "Interest accrues at 5% per annum.", ""},
	// modality
	{"must for may", "Employees must book economy class.", "Employees may book economy class for flights under six hours.", reasonModality},
	{"may for must", "Employees may book economy class.", "Employees must book economy class.", ""},
	{"shall for must", "The Borrower must deliver the certificate.", "The Borrower shall deliver the certificate.", ""},
	{"may only dropped", "Employees may book business class.", "Employees may only book business class for flights over six hours.", "qualifier_missing:restriction"},
	{"may only kept", "Employees may only book business class on long flights.", "Employees may only book business class for flights over six hours.", ""},
	{"should for must", "Receipts must be kept for a year.", "Receipts should be kept.", reasonModality},
	{"the modal of the claim's verb", "Applications must use Python 3.", "Applications should use Python 3 and must not be packaged for Python 2 as well.", reasonModality},
	{"the modal of the claim's verb twin", "Applications should use Python 3.", "Applications should use Python 3 and must not be packaged for Python 2 as well.", ""},
	{"the other verb's modal", "Applications must not be packaged for Python 2.", "Applications should use Python 3 and must not be packaged for Python 2 as well.", ""},
	{"will for may", "Late payment will result in termination of the contract.", "Late payment may result in termination of the contract.", reasonModality},
	{"will for may twin", "Late payment may lead to termination of the contract.", "Late payment may result in termination of the contract.", ""},
	{"will for will", "The Agent will notify the Lenders.", "The Agent will promptly notify the Lenders.", ""},
	{"may … only across a clause edge", "Pure Python modules may be able to avoid the -dev packages and Build-Depend only on the runtime environment.",
		"Pure Python modules may be able to avoid dependency on the -dev packages, and declare Build-Depends on the runtime environment only.", ""},
	{"only before a quantity bounds the amount", "On desktops you can spend only limited administration effort.",
		"The same can be said for desktop PCs on which you can spend limited administration efforts.", ""},
	{"only before a verb still restricts", "On desktops you can only spend limited administration effort.",
		"The same can be said for desktop PCs on which you can spend limited administration efforts.", reasonModality},
	{"may for will", "The Agent may notify the Lenders.", "The Agent will promptly notify the Lenders.", ""},
	{"is required that for recommended", "It is required that every invoice carries a PO number.", "It is recommended that every invoice carries a PO number.", reasonModality},
	{"is required that for must", "It is required that every invoice carries a PO number.", "Every invoice must carry a PO number.", ""},
	{"must for discretion", "The court must reduce the fine for a first offence.", "The court has discretion to reduce the fine for a first offence.", reasonModality},
	{"may for discretion", "The court may reduce the fine for a first offence.", "The court has discretion to reduce the fine for a first offence.", ""},
	{"will for might", "The streams will still be open when the event fires.", "When the event fires, the streams might still be open.", reasonModality},
	// code names
	{"path changed", "Modules are installed in /usr/lib/python3/site-packages.", "Public modules are installed in /usr/lib/python3/dist-packages.", reasonName},
	{"path kept", "Modules are installed in /usr/lib/python3/dist-packages.", "Public modules are installed in /usr/lib/python3/dist-packages.", ""},
	{"setting changed", "Setting panicnil=0 restores the old behaviour.", "Using `panicnil=1` restores the old behaviour.", reasonName},
	{"setting kept, marks dropped", "Setting panicnil=1 restores the old behaviour.", "Using `panicnil=1` restores the old behaviour.", ""},
	{"dotted setting changed", "Set pull.merge to true to squelch the warning.", "Set pull.rebase to false to squelch the warning.", reasonName},
	{"dotted setting kept, marks differ", "Set `pull.rebase` to false to squelch the warning.", "Set \"pull.rebase\" to false to squelch the warning.", ""},
	{"call changed", "child_process.fork() does not support the shell option.", "child_process.spawn() does not support the shell option.", reasonName},
	{"call kept without parentheses", "child_process.fork does not support the shell option.", "The child_process.fork() method does not support the shell option.", ""},
	{"package changed", "python2-doc provides the documentation.", "python3-doc provides the documentation.", reasonName},
	{"package kept", "The documentation is in python3-doc.", "python3-doc provides the documentation.", ""},
	{"no code: English compound with a digit", "Names hold only 8-bit characters.", "Names hold only printing 8-bit ASCII characters.", ""},
	{"no code: abbreviation", "Fees, e.g. the filing fee, are due at once.", "Fees, such as the filing fee, are due at once.", ""},
	{"no code: and/or", "The Agent and/or the Arranger may act.", "The Agent or the Arranger, or both, may act.", ""},
	{"setting spaced in the evidence", "Giving within=chapter numbers floats within chapters.", "For example, if within =chapter, the floats are numbered within chapters.", ""},
	{"setting spaced, changed", "Giving within=section numbers floats within sections.", "For example, if within =chapter, the floats are numbered within chapters.", reasonName},
	{"underscore drawn as a space in the evidence", "With unwind_protect the cleanup runs however control leaves the body.",
		"unwind protect body unwind protect cleanup cleanup end Execute body. Execute cleanup no matter how control exits body.", ""},
	{"underscore drawn as a space, another name", "With unwind_cleanup the cleanup runs however control leaves the body.",
		"unwind protect body unwind protect cleanup cleanup end Execute body. Execute cleanup no matter how control exits body.", reasonName},
	// names written another way (corpus/outside heldout7)
	{"hyphen for a space in a name", "The o, d and O types are short-cuts for D-type arguments.",
		"Internally, the o, d and O types are short-cuts to an appropriated-constructed D type argument.", ""},
	{"hyphen for a space, another name", "The o, d and O types are short-cuts for E-type arguments.",
		"Internally, the o, d and O types are short-cuts to an appropriated-constructed D type argument.", reasonName},
	{"a compound of the evidence's names", "The MLCFG-to-WhyML translation may raise errors.",
		"The translation from the MLCFG language to regular WhyML code may raise the following errors.", ""},
	{"a compound with a name the evidence lacks", "The MLCFG-to-OCaml translation may raise errors.",
		"The translation from the MLCFG language to regular WhyML code may raise the following errors.", reasonName},
	{"a CamelCase name by its capitals", "Here NetworkManager manages only interfaces not listed in /etc/network/interfaces.",
		"Only interfaces which are not listed in /etc/network/interfaces are managed by NM.", ""},
	{"a CamelCase name, other capitals", "Here NetworkDaemon manages only interfaces not listed in /etc/network/interfaces.",
		"Only interfaces which are not listed in /etc/network/interfaces are managed by NM.", reasonName},
	{"an acronym's plural", "Zeros and NAs are permitted in index matrices.", "NA and zero values are allowed in the index matrix.", ""},
	{"an acronym's plural, another acronym", "Zeros and NaNs are permitted in index matrices.", "NA and zero values are allowed in the index matrix.", reasonName},
	{"a name without its accent", "TrueType fonts use quadratic Bezier curves.", "TrueType fonts which use quadratic Bézier curves (good choice format)", ""},
	{"a name with an accent the evidence lacks", "TrueType fonts use quadratic Bézier curves.", "TrueType fonts which use quadratic Bezier curves.", ""},
	{"no code: a size", "The result is a length-5 vector of the even components.", "alpha <- alpha[2 * 1:5] makes it an object of length 5.", ""},
	{"a package with a version is code", "Install gcc12-doc for the manuals.", "Install gcc-doc for the manuals.", reasonName},
	{"code quoted part by part", "Mono fonts clearly distinguish 0/O and 1/I/l.", "usability for programming having clearly distinguishable ”0”/”O” and ”1”/”I”/”l”.", ""},
	{"code quoted part by part, changed", "Mono fonts clearly distinguish 0/O and 1/I/L/i.", "usability for programming having clearly distinguishable ”0”/”O” and ”1”/”I”/”l”.", reasonName},
	{"a name broken at a line's end", "The alignment follows Elaine Gould's advice in Behind Bars.",
		"This is in keeping with the advice of Elaine Gould (Be-\nhind Bars, p. 237).", ""},
	{"a name broken at a line's end, another name", "The alignment follows Elaine Gould's advice in Beyond Bars.",
		"This is in keeping with the advice of Elaine Gould (Be-\nhind Bars, p. 237).", reasonName},
	{"no code: a prefix on a version", "Setting randseednop=0 brings back the pre-1.24 behaviour.",
		"Using `randseednop=0` reverts to the pre-Go 1.24 behavior.", ""},
	{"a setting's value from the list of its values", "With fips140=only, algorithms not approved return an error.",
		"Go 1.24 added a new `fips140` setting. The possible values are: \"off\", \"on\", and \"only\": like \"on\", but algorithms not approved return an error.", ""},
	{"a setting's value not in its list", "With fips140=strict, algorithms not approved return an error.",
		"Go 1.24 added a new `fips140` setting. The possible values are: \"off\", \"on\", and \"only\": like \"on\", but algorithms not approved return an error.", reasonName},
	{"a unit written onto its number", "The image actually uses only about 83 MiB on disk.", "Its actual disk usage is mere 83MiB.", ""},
	// corpus/outside heldout11 (legal, insurance, clinical, finance).
	{"a covenant's floor, its negator far from the bound", "The Borrower must not permit the ratio of Consolidated EBITDA to Consolidated Interest Expense for any four consecutive fiscal quarters to fall below 2.50 to 1.00.",
		"(b) Interest Coverage Ratio. The Borrower shall not permit the ratio of Consolidated EBITDA to Consolidated Interest Expense for any period of four consecutive fiscal quarters to be less than 2.50:1.00.", ""},
	{"a covenant's floor read as a cap", "The Borrower must keep the ratio of Consolidated EBITDA to Consolidated Interest Expense at 2.50 to 1.00 or lower for every period of four consecutive fiscal quarters.",
		"(b) Interest Coverage Ratio. The Borrower shall not permit the ratio of Consolidated EBITDA to Consolidated Interest Expense for any period of four consecutive fiscal quarters to be less than 2.50:1.00.", reasonDirection},
	{"a covenant's cap, its negator far from the bound", "Annual Capital Expenditures are capped at $60 million.",
		"(c) Capital Expenditures. The Borrower and its Restricted Subsidiaries shall not make Capital Expenditures in any fiscal year in excess of $60,000,000.", ""},
	{"a covenant's cap read as a floor", "Annual Capital Expenditures must be at least $60 million.",
		"(c) Capital Expenditures. The Borrower and its Restricted Subsidiaries shall not make Capital Expenditures in any fiscal year in excess of $60,000,000.", reasonDirection},
	{"a negator of another verb turns no bound", "Prepayment is not required for amounts above $5 million.",
		"The Borrower does not require prepayment of amounts above $5 million, and the Agent may waive it.", ""},
	{"a range's upper end, the same number bounded elsewhere", "Those above 50 and up to 95 mL/min receive 60 mg once daily.",
		"| Greater than 95 mL/min | Do not use |\n| Greater than 50 to 95 mL/min | 60 mg once daily |", ""},
	{"a unit per minute is no minimum, the bound before it still read", "Patients at most 95 mL/min may use it.",
		"| Greater than 95 mL/min | Do not use |", reasonDirection},
	{"a modal of the sentence, not of the clause lined up, weaker", "Where a data subject's requests are manifestly unfounded or excessive, the controller must refuse to act on them.",
		"Where requests from a data subject are manifestly unfounded or excessive, in particular because of their repetitive character, the controller may either charge a reasonable fee taking into account the administrative costs, or refuse to act on the request.", reasonModalityUnconfirmed},
	{"a modal of the sentence, not of the clause lined up, the same", "Where a data subject's requests are manifestly unfounded or excessive, the controller may refuse to act on them.",
		"Where requests from a data subject are manifestly unfounded or excessive, in particular because of their repetitive character, the controller may either charge a reasonable fee taking into account the administrative costs, or refuse to act on the request.", ""},
	{"a choice where the evidence obliges", "When a Restricted Subsidiary receives Net Cash Proceeds from an Asset Sale, the Borrower may, at its option, use them to prepay the Term Loans.",
		"Within five Business Days after receipt by the Borrower or any Restricted Subsidiary of Net Cash Proceeds of any Asset Sale, the Borrower shall prepay the Term Loans in an amount equal to 100% of such Net Cash Proceeds.", reasonModality},
	{"a choice the evidence states", "The Borrower may, at its option, prepay the Term Loans in whole or in part.",
		"The Borrower may, at its option, prepay the Term Loans in whole or in part without premium.", ""},
	{"a choice the evidence states beside its obligation", "The Borrower may, at its option, prepay or repay the Term Loans.",
		"The Borrower shall, at its option, prepay or repay the Term Loans.", ""},
	{"optional as an adjective", "The optional send callback runs after the message is sent.",
		"The optional callback will be invoked after the message is sent but before the child may have received it.", ""},
	{"optional as a predicate where the evidence obliges", "Calling save after constructing the document is optional.",
		"After constructing the document you must call save.", reasonModality},
	{"an antonym of scale", "A data protection officer must be designated where the core activities consist of processing special categories of data on a small scale.",
		"The controller shall designate a data protection officer where the core activities consist of processing on a large scale of special categories of data.", reasonAntonym},
	{"the same scale", "A data protection officer must be designated where the core activities consist of processing special categories of data on a large scale.",
		"The controller shall designate a data protection officer where the core activities consist of processing on a large scale of special categories of data.", ""},
	{"an antonym of route", "The recommended dosage is 60 mg given intravenously once daily.",
		"The recommended dosage is 60 mg taken orally once daily with or without food.", reasonAntonym},
	{"the same route", "The recommended dosage is 60 mg given orally once daily.",
		"The recommended dosage is 60 mg taken orally once daily with or without food.", ""},
	{"a negation added in a sentence with an exception", "Term Loans held by a Defaulting Lender are not disregarded and still count in determining the Required Lenders.",
		"\"Required Lenders\" means Lenders holding more than 50% of the Term Loans; provided that the Term Loans held by any Defaulting Lender shall be disregarded in determining Required Lenders.", reasonPolarityUnconfirmed},
	{"the same sentence with an exception, negation kept", "Term Loans held by a Defaulting Lender are disregarded in determining the Required Lenders.",
		"\"Required Lenders\" means Lenders holding more than 50% of the Term Loans; provided that the Term Loans held by any Defaulting Lender shall be disregarded in determining Required Lenders.", ""},
	{"a negation dropped, the claim going on with despite", "In overdose, taloxaban is expected to be dialyzable despite its 92% plasma protein binding.",
		"Overdose of VELMORIDE increases the risk of bleeding. Taloxaban is not expected to be dialyzable because of its high plasma protein binding of 92%.", reasonPolarity},
	{"a negation kept, the claim going on with despite", "In overdose, taloxaban is not expected to be dialyzable, despite the risk of bleeding.",
		"Overdose of VELMORIDE increases the risk of bleeding. Taloxaban is not expected to be dialyzable because of its high plasma protein binding of 92%.", ""},
	{"a figure given to another segment's owner", "Flow Systems' organic sales grew 6.8%, led by semiconductor and life-sciences customers.",
		"| Segment | Q3 2025 | Q3 2024 | Change |\n|---|---|---|---|\n| Flow Systems | 512 | 505 | 1.4% |\n| Sensing Technologies | 495 | 405 | 22.3% |\n\nFlow Systems. Net sales increased 1.4%, as higher pricing was offset by lower volumes. Segment operating margin increased 70 basis points.\n\nSensing Technologies. Net sales increased 22.3%. Organic sales grew 6.8%, led by semiconductor and life-sciences customers.", reasonAttribution},
	{"a figure given to its segment's owner", "Sensing Technologies' organic sales grew 6.8%, led by semiconductor and life-sciences customers.",
		"| Segment | Q3 2025 | Q3 2024 | Change |\n|---|---|---|---|\n| Flow Systems | 512 | 505 | 1.4% |\n| Sensing Technologies | 495 | 405 | 22.3% |\n\nFlow Systems. Net sales increased 1.4%, as higher pricing was offset by lower volumes. Segment operating margin increased 70 basis points.\n\nSensing Technologies. Net sales increased 22.3%. Organic sales grew 6.8%, led by semiconductor and life-sciences customers.", ""},
	{"figures of two owners, each its own", "Flow Systems grew 1.4% while Sensing Technologies grew 22.3%.",
		"| Segment | Q3 2025 | Q3 2024 | Change |\n|---|---|---|---|\n| Flow Systems | 512 | 505 | 1.4% |\n| Sensing Technologies | 495 | 405 | 22.3% |\n\nFlow Systems. Net sales increased 1.4%, as higher pricing was offset by lower volumes. Segment operating margin increased 70 basis points.\n\nSensing Technologies. Net sales increased 22.3%. Organic sales grew 6.8%, led by semiconductor and life-sciences customers.", ""},
	{"a table row's figure given to another row", "Flow Systems net sales changed 22.3%.",
		"| Segment | Q3 2025 | Q3 2024 | Change |\n|---|---|---|---|\n| Flow Systems | 512 | 505 | 1.4% |\n| Sensing Technologies | 495 | 405 | 22.3% |\n\nFlow Systems. Net sales increased 1.4%, as higher pricing was offset by lower volumes. Segment operating margin increased 70 basis points.\n\nSensing Technologies. Net sales increased 22.3%. Organic sales grew 6.8%, led by semiconductor and life-sciences customers.", reasonAttribution},
	{"a negated necessity beside a bound", "The landlord need not give more than two monetary default notices in any 12-month period.",
		"Landlord shall not be required to give more than two (2) notices of monetary default in any twelve-month period.", ""},
	{"a negated necessity read as a cap", "The landlord may give no more than two monetary default notices in any 12-month period.",
		"Landlord shall not be required to give more than two (2) notices of monetary default in any twelve-month period.", reasonPolarity},
	{"an acronym's plural spelled out", "Class A shares require $1,000 for IRAs.",
		"The minimum initial investment is $2,500 for Class A shares, or $1,000 for individual retirement accounts.", ""},
	{"an acronym's plural not spelled out", "Class A shares require $1,000 for HSAs.",
		"The minimum initial investment is $2,500 for Class A shares, or $1,000 for individual retirement accounts.", reasonName},
	{"a right waived, said kept", "Borrower and Lender each keep the right to a trial by jury in any action relating to the Note.",
		"Borrower and Lender each waive trial by jury in any action relating to this Note.", reasonAntonym},
	{"a right waived, said waived", "Borrower and Lender each waive the right to a trial by jury in any action relating to the Note.",
		"Borrower and Lender each waive trial by jury in any action relating to this Note.", ""},
	{"a period of calendar quarters for calendar months", "Provider commits to 99.9% availability in each calendar quarter.",
		"Provider commits to 99.9% availability of the production environment, measured per calendar month.", reasonPeriod},
	{"the same calendar month", "Provider commits to 99.9% availability in each calendar month.",
		"Provider commits to 99.9% availability of the production environment, measured per calendar month.", ""},
	{"a floor's timing after its bound", "Payment is due no earlier than 21 days after each Billing Cycle closes.",
		"Your due date is at least 21 days after the close of each Billing Cycle.", ""},
	{"a floor's timing turned around", "Payment is due no earlier than 21 days before each Billing Cycle closes.",
		"Your due date is at least 21 days after the close of each Billing Cycle.", reasonDirection},
	{"a dotted abbreviation spelled out", "The exclusion does not apply to a U.S. citizen who is temporarily abroad.",
		"The exclusion does not apply to a citizen or resident of the United States who is temporarily outside these countries.", ""},
	{"a dotted abbreviation not spelled out", "The exclusion does not apply to a U.K. citizen who is temporarily abroad.",
		"The exclusion does not apply to a citizen or resident of the United States who is temporarily outside these countries.", reasonName},
	{"an irregular demonym", "Under Clause 17, Dutch law governs.",
		"For the purposes of Clause 17 the governing law is that of the Netherlands.", ""},
	{"an irregular demonym of another place", "Under Clause 17, Swiss law governs.",
		"For the purposes of Clause 17 the governing law is that of the Netherlands.", reasonName},
	{"a no before the subject", "Co-owners cast the vote as they agree, and fractional votes are not allowed.",
		"The vote for that Lot shall be cast as the co-owners agree, and no fractional votes are allowed.", ""},
	{"a no before the subject, dropped", "Co-owners cast the vote as they agree, and fractional votes are allowed.",
		"The vote for that Lot shall be cast as the co-owners agree, and no fractional votes are allowed.", reasonPolarity},
	{"a demonym of a place the evidence names", "Aftermarket Services grew on North American parts demand.",
		"Aftermarket Services. Net sales increased 4.1%, driven by higher service contract renewals and parts demand in North America.", ""},
	{"a demonym of another place", "Aftermarket Services grew on South American parts demand.",
		"Aftermarket Services. Net sales increased 4.1%, driven by higher service contract renewals and parts demand in North America.", reasonName},
	// A unit after a number is the figures' to judge (figure_missing:
	// TestCheckFigures), not a name.
	{"a unit the evidence does not write", "The image actually uses only about 83 KiB on disk.", "Its actual disk usage is mere 83MiB.", ""},
	{"a unit as a name, after no number", "The KiB figure is what the image uses on disk.", "Its actual disk usage is mere 83MiB.", reasonName},
	{"a call's possessive, the call named with its arguments", "If fork()'s stdio option is an array, it must hold one 'ipc' item.",
		"child_process.fork(modulePath[, args][, options]): if the array variant of stdio is used, it must contain exactly one item with value 'ipc'.", ""},
	{"a call's possessive, another call", "If spawn()'s stdio option is an array, it must hold one 'ipc' item.",
		"child_process.fork(modulePath[, args][, options]): if the array variant of stdio is used, it must contain exactly one item with value 'ipc'.", reasonName},
	{"acronym spelled with hyphens", "Channels behave as FIFO queues.", "Channels act as first-in-first-out queues.", ""},
	{"no code: a product name", "Since Node.js v15, gopher is no special scheme.", "Since Node v15.0.0, gopher is no longer a special scheme.", ""},
	{"no code: a date", "Reports are due by 2026-06-30.", "Reports are due by 30 June 2026.", ""},
	// negations in other words (corpus/outside heldout2)
	{"or not denies", "A receive succeeds if the buffer is not empty.", "It succeeds if the buffer is not full (sends) or not empty (receives).", ""},
	{"or not denies, dropped (a condition: review)", "A receive succeeds if the buffer is empty.", "It succeeds if the buffer is not full (sends) or not empty (receives).", reasonPolarityUnconfirmed},
	{"impossible to", "Once created, the contents of a string can't be changed.", "Once created, it is impossible to change the contents of a string.", ""},
	{"impossible to, dropped", "Once created, the contents of a string can be changed.", "Once created, it is impossible to change the contents of a string.", reasonPolarity},
	{"rather than", "The module is packaged as python3-xdg rather than python3-pyxdg.", "The module is packaged as python3-xdg and not python3-pyxdg.", ""},
	{"rather than, the other way", "The module is packaged as python3-pyxdg rather than python3-xdg.", "The module is packaged as python3-xdg and not python3-pyxdg.", reasonPolarity},
	{"instead of", "Classes are given per column instead of per variable.", "Classes are specified per column, not per variable.", ""},
	{"replace for instead of", "As of v1.2, {1-5} can replace {1,2,3,4,5} in a number series.",
		"In the helicalwheel environment number series can be written with a dash, e. g. {1-5} instead of {1,2,3,4,5}.", ""},
	{"replace does not answer a plain not", "The new form replaces the old one, and old forms are accepted.",
		"The new form is used instead of the old one, and old forms are not accepted.", reasonPolarity},
	{"not … without: a condition (review)", "Several processes must not write to actively accessed files without coordination.",
		"The uncoordinated write access to actively accessed files from multiple processes must not be done.", reasonPolarityUnconfirmed},
	{"not … without on one side, without on both", "Processes must not write to shared files without a lock.",
		"Processes must write to shared files without a lock.", reasonPolarity},
	{"negated elsewhere than the clause lined up (review, no block)", "None of the packaging tools is mandatory.",
		"B.2. Packaging Tools\n\nThis section describes the tools. Although none of these tools are mandatory, their use is strongly encouraged.", reasonPolarityUnconfirmed},
	{"negated elsewhere, on other words: still a block", "None of the packaging tools is documented.",
		"B.2. Packaging Tools\n\nThis section describes the tools. Although none of these tools are mandatory, their use is strongly encouraged.", reasonPolarity},
	{"a verb of lacking ending a relative clause", "By default, a font asked to draw a character it lacks prints a notdef character.",
		"The default behaviour is for the font to print a notdef character when passed a character it cannot draw.", ""},
	{"a verb of lacking with its object", "By default, the font lacks a notdef character.",
		"By default, the font has a notdef character, typically a blob.", "polarity_"},
	{"without W for W is not present", "Without within this case is just ignored.",
		"While this case is simply ignored when within is not present, we issue a warning here.", ""},
	{"without W where W is present", "Without within this case is just ignored.",
		"While this case is simply ignored when within is present, we issue a warning here.", "polarity_"},
	{"prevent … from for not", "Use pauseOnConnect so the sockets are not read before they are sent to the child.",
		"Use pauseOnConnect to prevent the sockets from being read before they are sent to the child process.", reasonPolarityUnconfirmed},
	{"not where nothing prevents", "Use pauseOnConnect so the sockets are not read before they are sent to the child.",
		"Use pauseOnConnect so the sockets are read before they are sent to the child process.", reasonPolarity},
	{"the same denial on both sides", "Contention serializes rather than fails, since the lock is taken with F_GETLKW.",
		"This lock is always acquired with F_GETLKW so as to serialize rather than fail on contention.", ""},
	{"not, however,", "These cannot be customized.", "These are not, however, customizable in any way.", ""},
	{"not, however, dropped", "These can be customized in every way.", "These are not, however, customizable in any way.", reasonPolarity},
	{"however between clauses still breaks", "Fees are refundable.", "Fees are not refundable, however, the deposit is returned.", reasonPolarity},
	{"negated in another clause, predicate in other words", "The capacity hint given to make does not limit a map's size.",
		"Make takes the map type and an optional capacity hint as arguments. The initial capacity does not bound its size.", ""},
	{"negation dropped, predicate shared", "The capacity hint given to make limits a map's size.",
		"The capacity hint given to make does not limit a map's size. Make takes the map type and a capacity hint; a nil map has no capacity.", reasonPolarity},
	{"not received more than", "The institution has received no more than two notices.", "The institution has not received more than two notices.", ""},
	{"not received more than, bound flipped", "The institution has received more than two notices.", "The institution has not received more than two notices.", reasonDirection},
	{"not acknowledged within", "If a report is not acknowledged within 6 days, the reporter may escalate.", "If you do not receive an acknowledgement of your report within 6 days, you may escalate.", ""},
	{"not … under, no figure", "A compiler may optimize code under the assumption that overflow does not occur.", "A compiler may not optimize code under the assumption that overflow does not occur.", reasonPolarity},
	{"does not in fact exceed", "The ratio is at most 3.00 to 1.", "The ratio does not in fact exceed 3.00 to 1.", ""},
	// antonyms
	{"relative for absolute", "A file trigger's pathname may be relative.", "A file trigger's pathname must be absolute.", reasonAntonym},
	{"absolute kept", "A file trigger's pathname must be absolute.", "A file trigger's pathname must be absolute.", ""},
	{"ignored for honored", "Directives in dependency modules are honored.", "Directives in dependency modules are ignored.", reasonAntonym},
	{"not honored for ignored", "Directives in dependency modules are not honored.", "Directives in dependency modules are ignored.", ""},
	{"last for first", "get(name) returns the value of the last pair with that name.", "get(name) returns the value of the first pair with that name.", reasonAntonym},
	{"first kept, last elsewhere", "get(name) returns the value of the first pair with that name.", "get(name) returns the value of the first pair with that name, not the last.", ""},
	{"both words on the evidence side", "Shifts are logical for signed operands.", "Shifts are arithmetic for signed operands and logical for unsigned ones.", ""},
	{"discouraged for encouraged", "Carrying local assignments forward is encouraged.", "Carrying local assignments forward is discouraged.", reasonAntonym},
	{"added for removed", "The barAlways property has been added.", "The barAlways property has been removed.", reasonAntonym},
	{"added and removed both in the evidence", "The barAlways property has been added.", "The barAlways property has been added and forbidBreak removed.", ""},
	{"disabled for not enabled", "Tracing is disabled by default.", "Tracing is not enabled by default.", ""},
	// polarity the words cannot confirm: review, not a block
	{"negation in other words", "Some printers cope badly with pages that are too large.", "Some printers do not work well with pages that are too large.", reasonPolarityUnconfirmed},
	{"each side its own negation", "An empty function literal is not allowed.", "Function literals cannot be empty.", reasonPolarityUnconfirmed},
	{"negation in a condition", "If the operand isn't a nil slice, the result shares its array.", "If the operand is a nil slice, the result is a nil slice.", reasonPolarityUnconfirmed},
	{"negated comparison", "Low must not be greater than high.", "The indices must satisfy low <= high.", reasonPolarityUnconfirmed},
	{"near-verbatim negation still contradicts", "The policy covers flood damage in full.", "The policy does not cover flood damage in full.", reasonPolarity},
	// exceptions
	{"a failure to act is a denial", "A Buyer who gives no notice before the Inspection Period ends is deemed to accept the Property.", "Buyer's failure to give notice before the Inspection Period expires shall be deemed acceptance of the Property.", reasonPolarityUnconfirmed},
	{"a failure to act, twin", "A Buyer who gives no notice before the Inspection Period ends is deemed to accept the Property.", "Buyer's giving notice before the Inspection Period expires shall be deemed acceptance of the Property.", reasonPolarity},
	{"exception dropped", "Water damage is covered.", "Water damage is covered, unless the property lies in Flood Zone 3.", "qualifier_missing:exception"},
	{"exception kept", "Water damage is covered unless the property is in Flood Zone 3.", "Water damage is covered, unless the property lies in Flood Zone 3.", ""},
	{"exception in own words", "Water damage is covered for property outside Flood Zone 3.", "Water damage is covered, unless the property lies in Flood Zone 3.", ""},
	{"subject to", "The Borrower shall repay the loan on the maturity date.", "Subject to Clause 7, the Borrower shall repay the loan on the maturity date.", "qualifier_missing:exception"},
	{"exception of another rule", "Meals are reimbursed at cost.", "Meals are reimbursed at cost, and alcohol is excluded except at client dinners.", ""},
	{"exception of the rule after a comma", "Receipts are required.", "Receipts are required, except for taxis.", "qualifier_missing:exception"},
	{"exception in other sentence", "Meals are reimbursed.", "Meals are reimbursed. Alcohol is not reimbursed unless a client attends.", ""},
	{"a scale's per-share carve-out", "For the six months, revenue was USD 808.3 million.", "| USD thousands, except per-share data | Six months FY2025 |\n|---|---|\n| Revenue | 808,300 |", ""},
	{"a scale's carve-out twin", "Revenue is recognised on delivery.", "Revenue is recognised on delivery, except per the terms of a consignment.", "qualifier_missing:exception"},
	// names
	{"drug swapped", "Patients should take metformin with food.", "Patients should take sitagliptin with food.", reasonName},
	{"drug twin", "Patients should take sitagliptin with food.", "Patients should take sitagliptin with food.", ""},
	{"name absent", "The guarantee is given by Beta Holdings.", "The guarantee is given by Kestrel Harbor Inc.", reasonName},
	{"name present", "The guarantee is given by Kestrel Harbor Inc.", "The guarantee is given by Kestrel Harbor Inc.", ""},
	{"document name", "Under the Travel Policy, meals are reimbursed.", "Meals are reimbursed.", ""},
	{"currency word capitalized", "The allowance is 75 Euros per day.", "The allowance is EUR 75 per day.", ""},
	{"acronym of the evidence's words", "Late reports need the approval of the CFO.", "Late reports need the written approval of the Chief Financial Officer.", ""},
	{"spelt out for the evidence's acronym", "Late reports need the approval of the Chief Financial Officer.", "Late reports need the written approval of the CFO.", ""},
	{"possessive", "Kestrel Harbor's revenue rose in 2024.", "Revenue of Kestrel Harbor rose in 2024.", ""},
	{"acronym absent", "Late reports need the approval of the CEO.", "Late reports need the written approval of the Chief Financial Officer.", reasonName},
	// roles
	{"subject swapped", "The Insured may cancel this policy at any time.", "The Insurer may cancel this policy at any time by giving the Insured 30 days notice.", reasonRole},
	{"subject twin", "The Insurer may cancel this policy at any time.", "The Insurer may cancel this policy at any time by giving the Insured 30 days notice.", ""},
	{"other party, other object", "The Insurer shall pay claims within 30 days.", "The Insured shall pay the premium annually. The Insurer shall settle claims within 30 days.", ""},
	{"role swapped", "Alder Street Bank acts as arranger.", "Alder Street Bank, as agent, and Birch Capital, as arranger, signed the agreement.", reasonRole},
	{"role twin", "Alder Street Bank acts as agent.", "Alder Street Bank, as agent, and Birch Capital, as arranger, signed the agreement.", ""},
}

// wholeChunkCases are citations that name no quote and no offsets: the
// whole chunk is the span, so a modal elsewhere in it is not the aligned
// sentence's.
var wholeChunkCases = []meaningCase{
	{"must elsewhere in the chunk", "Receipts must be kept for a year.", "Receipts should be kept for a year. Invoices must be paid within 30 days.", reasonModality},
	{"must elsewhere in the chunk twin", "Invoices must be paid within 30 days.", "Receipts should be kept for a year. Invoices must be paid within 30 days.", ""},
	{"should elsewhere in the chunk twin", "Receipts should be kept for a year.", "Receipts should be kept for a year. Invoices must be paid within 30 days.", ""},
}

func TestMeaningWholeChunk(t *testing.T) {
	var m meaningScanner
	for _, tc := range wholeChunkCases {
		ev := meaningEvidence{context: tc.evidence, spanFrom: 0, spanTo: len(tc.evidence), chunk: tc.evidence, whole: true}
		res := m.check(tc.claim, []meaningEvidence{ev})
		got := ""
		for _, f := range res.findings {
			got += f.Reason + " "
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: claim %q on %q: got %q, want %q", tc.name, tc.claim, tc.evidence, got, tc.want)
		}
		// Quoted, the same sentence pair passes: the quote's span states the must.
		ev.whole = false
		if res := m.check(tc.claim, []meaningEvidence{ev}); len(res.findings) > 0 && tc.want == "" {
			t.Errorf("%s quoted: false finding %v", tc.name, res.findings)
		}
	}
}

// TestModalSaidInWholeChunk: a citation of a whole chunk quotes nothing,
// so a modal is stated only where the chunk puts it on the claim's own
// verb, after its own subject, in a clause that holds all the claim
// clause's words (corpus/outside heldout11 d059).
func TestModalSaidInWholeChunk(t *testing.T) {
	policy := "Cancellation. You may cancel this policy at any time by returning it to us or by letting us know in writing of the date cancellation is to take effect. We may cancel this policy only for the reasons stated below by letting you know in writing of the date cancellation takes effect. When you have not paid the premium, we may cancel at any time by letting you know at least 10 days before the date cancellation takes effect."
	python := "Applications should use Python 3 from the start. New packages must use Python 3."
	for _, tc := range []struct{ name, claim, evidence, want string }{
		{"the modal on the same words elsewhere", "The insured can cancel at any time, either by returning the policy or by telling the insurer in writing when the cancellation is to take effect.", policy, ""},
		{"the modal on no words of the chunk", "The insured must cancel this policy at any time by returning it.", policy, reasonModality},
		{"the modal on another subject", "Applications must use Python 3 from the start.", python, reasonModality},
		{"the modal on the same subject", "New packages must use Python 3.", python, ""},
	} {
		var m meaningScanner
		ev := meaningEvidence{context: tc.evidence, spanFrom: 0, spanTo: len(tc.evidence), chunk: tc.evidence, whole: true}
		res := m.check(tc.claim, []meaningEvidence{ev})
		got := ""
		for _, f := range res.findings {
			got += f.Reason + " "
		}
		if (tc.want == "") != (got == "") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: findings %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMeaningChecks(t *testing.T) {
	var m meaningScanner
	for _, tc := range meaningCases {
		t.Run(tc.name, func(t *testing.T) {
			ev := meaningEvidence{context: tc.evidence, spanFrom: 0, spanTo: len(tc.evidence), chunk: tc.evidence}
			res := m.check(tc.claim, []meaningEvidence{ev})
			var got []string
			for _, f := range res.findings {
				got = append(got, f.Message)
			}
			if tc.want == "" {
				if len(res.findings) > 0 {
					t.Errorf("claim %q on %q: false finding %v", tc.claim, tc.evidence, got)
				}
				return
			}
			for _, f := range res.findings {
				if strings.HasPrefix(f.Reason, tc.want) {
					return
				}
			}
			t.Errorf("claim %q on %q: want %s, got %v", tc.claim, tc.evidence, tc.want, got)
		})
	}
}

// TestRestatesIsExact: the shortcut for a claim that restates its sentence
// never hides a finding the full checks would make. Every case, and every
// claim cut from the fixtures' sentences at each word, is checked both
// ways.
func TestRestatesIsExact(t *testing.T) {
	var m meaningScanner
	texts := []string{}
	for _, tc := range meaningCases {
		texts = append(texts, tc.evidence)
	}
	texts = append(texts, "The Net Leverage Ratio shall not exceed 3.25 to 1.00 unless the Agent agrees.",
		"For the avoidance of doubt, the Lender must not encrypt backup media in the currency of the expense.",
		"Employees may only book business class for flights over six hours, and never on weekends.",
		"These aren't, however, customizable in any way, and the deposit is, therefore, kept.")
	skipped := 0
	for _, text := range texts {
		ws := strings.Fields(text)
		for i := range ws {
			for j := i + 1; j <= len(ws); j++ {
				claim := strings.Join(ws[i:j], " ")
				at := strings.Index(text, claim)
				ev := []meaningEvidence{{context: text, spanFrom: at, spanTo: at + len(claim), chunk: text}}
				r := restates(claim, ev)
				if r != restatesIn(claim, ev, false) {
					t.Errorf("restates(%q) in %q: %v from the cached scan, not scanning", claim, text, r)
				}
				if !r {
					continue
				}
				skipped++
				if res := m.checkAll(claim, ev); len(res.findings) > 0 {
					t.Errorf("restates(%q) in %q, but the checks find %v", claim, text, res.findings[0].Message)
				}
			}
		}
	}
	if skipped < 100 {
		t.Errorf("only %d claims took the shortcut", skipped)
	}
}

func TestContainsWordFold(t *testing.T) {
	for _, tc := range []struct {
		s, w string
		want bool
	}{
		{"the Chief Financial Officer signs", "financial", true},
		{"the Chief Financial Officer signs", "FINANCIAL", true},
		{"the financially sound", "financial", false},
		{"Kestrel Harbor Group Ltd", "harbor", true},
		{"abc", "abcd", false},
		{"7 banks", "7", true},
		{"17 banks", "7", false},
		{"Ärzte und Ärztinnen", "ärzte", true},
		{"", "x", false},
	} {
		if got := containsWordFold(tc.s, tc.w); got != tc.want {
			t.Errorf("containsWordFold(%q, %q) = %v, want %v", tc.s, tc.w, got, tc.want)
		}
	}
}
