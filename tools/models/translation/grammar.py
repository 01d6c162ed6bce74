"""Synthetic English->French grammar for the vkattn translation demo model.

Every English sentence maps to exactly one French sentence (the generator is a
function of the sampled parse, and the surface English determines the parse), so
greedy exact-match accuracy is well defined.

Covered phenomena:
  * article gender, number and elision: le/la/l'/les, un/une, ce/cet/cette/ces
  * contraction with de and a: du/de la/de l'/des, au/a la/a l'/aux
  * adjectives after the noun, stacked adjectives in reversed order, agreement
    ("the European Economic Area" -> "la zone economique europeenne")
  * passive voice with participle agreement ("was signed" -> "a ete signe/signee/
    signes/signees"), future passive ("will be" -> "sera/seront"), negation
    ("was not" -> "n'a pas ete", "will not be" -> "ne sera pas")
  * active past tense with avoir and negation ("did not sign" -> "n'a pas signe")
  * dates: "in August 1992" -> "en aout 1992", "on 3 May 2001" -> "le 3 mai 2001",
    "on 1 May" -> "le 1er mai", before/after -> avant/apres, fronted dates with a
    comma, "of March 1957" -> "de mars 1957" / "d'aout 1992"
  * English a/an ("a European", "an economic"), capitalised proper names
    ("the European Economic Area")

Usage: ``generate(rng)`` returns ``(english, french)`` for a ``random.Random``.
"""

import random

VOWELS_FR = set("aâàeéèêëiîïoôuûAÂÀEÉÈÊIÎOÔUÛ")

# --------------------------------------------------------------------------
# Lexicon
# --------------------------------------------------------------------------

# english singular, english plural (None: no plural), french singular,
# french plural, gender, kinds (d = document, i = institution, t = topic)
NOUNS = [
    ("agreement", "agreements", "accord", "accords", "m", "d"),
    ("treaty", "treaties", "traité", "traités", "m", "d"),
    ("convention", "conventions", "convention", "conventions", "f", "d"),
    ("regulation", "regulations", "règlement", "règlements", "m", "d"),
    ("directive", "directives", "directive", "directives", "f", "d"),
    ("report", "reports", "rapport", "rapports", "m", "d"),
    ("proposal", "proposals", "proposition", "propositions", "f", "d"),
    ("budget", "budgets", "budget", "budgets", "m", "dt"),
    ("programme", "programmes", "programme", "programmes", "m", "dt"),
    ("law", "laws", "loi", "lois", "f", "d"),
    ("decision", "decisions", "décision", "décisions", "f", "d"),
    ("contract", "contracts", "contrat", "contrats", "m", "d"),
    ("declaration", "declarations", "déclaration", "déclarations", "f", "d"),
    ("protocol", "protocols", "protocole", "protocoles", "m", "d"),
    ("plan", "plans", "plan", "plans", "m", "d"),
    ("amendment", "amendments", "amendement", "amendements", "m", "d"),
    ("initiative", "initiatives", "initiative", "initiatives", "f", "d"),
    ("resolution", "resolutions", "résolution", "résolutions", "f", "d"),
    ("strategy", "strategies", "stratégie", "stratégies", "f", "dt"),
    ("reform", "reforms", "réforme", "réformes", "f", "dt"),
    ("charter", "charters", "charte", "chartes", "f", "d"),
    ("statute", "statutes", "statut", "statuts", "m", "d"),
    ("document", "documents", "document", "documents", "m", "d"),
    ("project", "projects", "projet", "projets", "m", "dt"),
    ("study", "studies", "étude", "études", "f", "d"),
    ("opinion", "opinions", "avis", "avis", "m", "d"),
    ("request", "requests", "demande", "demandes", "f", "d"),
    ("council", "councils", "conseil", "conseils", "m", "i"),
    ("commission", "commissions", "commission", "commissions", "f", "i"),
    ("committee", "committees", "comité", "comités", "m", "i"),
    ("parliament", "parliaments", "parlement", "parlements", "m", "i"),
    ("government", "governments", "gouvernement", "gouvernements", "m", "i"),
    ("bank", "banks", "banque", "banques", "f", "i"),
    ("agency", "agencies", "agence", "agences", "f", "i"),
    ("organisation", "organisations", "organisation", "organisations", "f", "i"),
    ("union", "unions", "union", "unions", "f", "i"),
    ("court", "courts", "cour", "cours", "f", "i"),
    ("assembly", "assemblies", "assemblée", "assemblées", "f", "i"),
    ("ministry", "ministries", "ministère", "ministères", "m", "i"),
    ("association", "associations", "association", "associations", "f", "i"),
    ("office", "offices", "bureau", "bureaux", "m", "i"),
    ("authority", "authorities", "autorité", "autorités", "f", "i"),
    ("delegation", "delegations", "délégation", "délégations", "f", "i"),
    ("institute", "institutes", "institut", "instituts", "m", "i"),
    ("area", "areas", "zone", "zones", "f", "t"),
    ("market", "markets", "marché", "marchés", "m", "t"),
    ("economy", "economies", "économie", "économies", "f", "t"),
    ("industry", "industries", "industrie", "industries", "f", "t"),
    ("energy", None, "énergie", None, "f", "t"),
    ("environment", None, "environnement", None, "m", "t"),
    ("policy", "policies", "politique", "politiques", "f", "t"),
    ("system", "systems", "système", "systèmes", "m", "t"),
    ("fund", "funds", "fonds", "fonds", "m", "ti"),
    ("partnership", "partnerships", "partenariat", "partenariats", "m", "t"),
    ("community", "communities", "communauté", "communautés", "f", "ti"),
    ("region", "regions", "région", "régions", "f", "t"),
    ("sector", "sectors", "secteur", "secteurs", "m", "t"),
    ("network", "networks", "réseau", "réseaux", "m", "t"),
    ("space", None, "espace", None, "m", "t"),
    ("cooperation", None, "coopération", None, "f", "t"),
    ("trade", None, "commerce", None, "m", "t"),
    ("security", None, "sécurité", None, "f", "t"),
    ("research", None, "recherche", None, "f", "t"),
    ("transport", None, "transport", None, "m", "t"),
    ("currency", "currencies", "monnaie", "monnaies", "f", "t"),
    ("agriculture", None, "agriculture", None, "f", "t"),
]


def _adj(m, f=None, mp=None, fp=None):
    if f is None:
        f = m if m.endswith("e") else m + "e"
    if mp is None:
        mp = m if m.endswith("s") else m + "s"
    if fp is None:
        fp = f + "s"
    return {"ms": m, "fs": f, "mp": mp, "fp": fp}


# Origin adjectives come first in English, last in French.
ORIGIN_ADJS = [
    ("European", _adj("européen", "européenne")),
    ("French", _adj("français", "française")),
    ("German", _adj("allemand")),
    ("Italian", _adj("italien", "italienne")),
    ("Spanish", _adj("espagnol")),
    ("British", _adj("britannique")),
    ("Nordic", _adj("nordique")),
    ("African", _adj("africain")),
    ("American", _adj("américain")),
    ("Atlantic", _adj("atlantique")),
    ("national", _adj("national", mp="nationaux")),
    ("international", _adj("international", mp="internationaux")),
    ("regional", _adj("régional", mp="régionaux")),
    ("federal", _adj("fédéral", mp="fédéraux")),
]

# Classifying adjectives come next to the noun in both languages.
CLASS_ADJS = [
    ("economic", _adj("économique")),
    ("monetary", _adj("monétaire")),
    ("political", _adj("politique")),
    ("social", _adj("social", mp="sociaux")),
    ("financial", _adj("financier", "financière")),
    ("central", _adj("central", mp="centraux")),
    ("commercial", _adj("commercial", mp="commerciaux")),
    ("agricultural", _adj("agricole")),
    ("environmental", _adj("environnemental", mp="environnementaux")),
    ("common", _adj("commun")),
    ("public", _adj("public", "publique")),
    ("legal", _adj("juridique")),
    ("industrial", _adj("industriel", "industrielle")),
    ("annual", _adj("annuel", "annuelle")),
    ("general", _adj("général", mp="généraux")),
    ("scientific", _adj("scientifique")),
    ("technical", _adj("technique")),
    ("fiscal", _adj("fiscal", mp="fiscaux")),
    ("military", _adj("militaire")),
    ("digital", _adj("numérique")),
]


def _pp(m, f=None, mp=None, fp=None):
    return _adj(m, f, mp, fp)


# english past, english base, english participle, french participle forms,
# kinds of subjects it takes in the passive, takes "to" complement
VERBS = [
    ("signed", "sign", "signed", _pp("signé"), "d", False),
    ("approved", "approve", "approved", _pp("approuvé"), "d", False),
    ("adopted", "adopt", "adopted", _pp("adopté"), "d", False),
    ("rejected", "reject", "rejected", _pp("rejeté"), "d", False),
    ("ratified", "ratify", "ratified", _pp("ratifié"), "d", False),
    ("presented", "present", "presented", _pp("présenté"), "d", True),
    ("published", "publish", "published", _pp("publié"), "d", False),
    ("discussed", "discuss", "discussed", _pp("discuté"), "d", False),
    ("modified", "modify", "modified", _pp("modifié"), "d", False),
    ("amended", "amend", "amended", _pp("amendé"), "d", False),
    ("prepared", "prepare", "prepared", _pp("préparé"), "d", False),
    ("accepted", "accept", "accepted", _pp("accepté"), "d", False),
    ("examined", "examine", "examined", _pp("examiné"), "d", False),
    ("renewed", "renew", "renewed", _pp("renouvelé"), "d", False),
    ("cancelled", "cancel", "cancelled", _pp("annulé"), "d", False),
    ("extended", "extend", "extended", _pp("prolongé"), "d", False),
    ("concluded", "conclude", "concluded", _pp("conclu"), "d", False),
    ("wrote", "write", "written", _pp("écrit"), "d", False),
    ("submitted", "submit", "submitted", _pp("soumis", "soumise"), "d", True),
    ("sent", "send", "sent", _pp("envoyé"), "d", True),
    ("created", "create", "created", _pp("créé"), "it", False),
    ("established", "establish", "established", _pp("établi"), "it", False),
    ("founded", "found", "founded", _pp("fondé"), "it", False),
    ("reformed", "reform", "reformed", _pp("réformé"), "it", False),
    ("dissolved", "dissolve", "dissolved", _pp("dissous", "dissoute"), "i", False),
    ("opened", "open", "opened", _pp("ouvert"), "it", False),
    ("financed", "finance", "financed", _pp("financé"), "it", False),
    ("closed", "close", "closed", _pp("fermé"), "it", False),
    ("consulted", "consult", "consulted", _pp("consulté"), "i", False),
    ("informed", "inform", "informed", _pp("informé"), "i", False),
    ("reorganised", "reorganise", "reorganised", _pp("réorganisé"), "it", False),
]

MONTHS = [
    ("January", "janvier"), ("February", "février"), ("March", "mars"),
    ("April", "avril"), ("May", "mai"), ("June", "juin"), ("July", "juillet"),
    ("August", "août"), ("September", "septembre"), ("October", "octobre"),
    ("November", "novembre"), ("December", "décembre"),
]

YEARS = list(range(1950, 2030))
DAYS = list(range(1, 32))

# Words that start with a vowel letter but take "a" in English.
A_NOT_AN = {"European", "union", "Union", "unions", "Unions"}

NOUN_BY_EN = {n[0]: n for n in NOUNS}
ORIGIN_BY_EN = dict(ORIGIN_ADJS)
CLASS_BY_EN = dict(CLASS_ADJS)
VERB_BY_EN = {v[0]: v for v in VERBS}
MONTH_BY_EN = dict(MONTHS)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def cap(word):
    return word[:1].upper() + word[1:]


def starts_with_vowel_fr(word):
    return word[:1] in VOWELS_FR


def form_key(gender, plural):
    return gender + ("p" if plural else "s")


class NP:
    """A noun phrase: determiner, adjectives, noun, optional post-modifier."""

    def __init__(self, noun, plural=False, det="the", origin=None, klass=None,
                 title=False, pp=None):
        self.noun = noun          # entry of NOUNS
        self.plural = plural
        self.det = det            # the | this | a
        self.origin = origin      # english origin adjective or None
        self.klass = klass        # english classifying adjective or None
        self.title = title        # capitalise adjectives + noun in English
        self.pp = pp              # ("on"|"of"|"with"|"for", NP) or ("of-date", (month, year))

    @property
    def gender(self):
        return self.noun[4]

    # ---- English ---------------------------------------------------------
    def en_core(self):
        words = []
        if self.origin:
            words.append(cap(self.origin) if self.title else self.origin)
        if self.klass:
            words.append(cap(self.klass) if self.title else self.klass)
        noun = self.noun[1] if self.plural else self.noun[0]
        words.append(cap(noun) if self.title else noun)
        return words

    def en(self):
        core = self.en_core()
        if self.det == "the":
            det = "the"
        elif self.det == "this":
            det = "these" if self.plural else "this"
        else:  # a / an
            first = core[0]
            det = "an" if first[:1].lower() in "aeiou" and first not in A_NOT_AN else "a"
        words = [det] + core
        if self.pp is not None:
            kind, arg = self.pp
            if kind == "of-date":
                month, year = arg
                words += ["of", month, str(year)]
            else:
                words += [kind] + arg.en()
        return words

    # ---- French ----------------------------------------------------------
    def fr_core(self):
        key = form_key(self.gender, self.plural)
        words = [self.noun[3] if self.plural else self.noun[2]]
        if self.klass:
            words.append(CLASS_BY_EN[self.klass][key])
        if self.origin:
            words.append(ORIGIN_BY_EN[self.origin][key])
        return words

    def fr_def_article(self, prep=None):
        """Definite article merged with an optional preposition (de, à)."""
        core = self.fr_core()
        vowel = starts_with_vowel_fr(core[0])
        if self.plural:
            art = {"de": "des", "à": "aux"}.get(prep, "les")
            return [art]
        if vowel:
            art = "l'"
        else:
            art = "le" if self.gender == "m" else "la"
        if prep == "de":
            if art == "le":
                return ["du"]
            return ["de", art]
        if prep == "à":
            if art == "le":
                return ["au"]
            return ["à", art]
        return [art]

    def fr(self, prep=None):
        """French words; prep in (None, 'de', 'à') is merged with the article."""
        core = self.fr_core()
        vowel = starts_with_vowel_fr(core[0])
        if self.det == "the":
            det = self.fr_def_article(prep)
        else:
            if self.det == "this":
                if self.plural:
                    d = "ces"
                elif self.gender == "f":
                    d = "cette"
                else:
                    d = "cet" if vowel else "ce"
            else:
                d = "une" if self.gender == "f" else "un"
            det = ([prep] if prep else []) + [d]
        words = det + core
        if self.pp is not None:
            kind, arg = self.pp
            if kind == "of-date":
                month, year = arg
                fm = MONTH_BY_EN[month]
                words += (["d'" + fm] if starts_with_vowel_fr(fm) else ["de", fm]) + [str(year)]
            elif kind == "of":
                words += arg.fr("de")
            else:
                words += [{"on": "sur", "with": "avec", "for": "pour"}[kind]] + arg.fr()
        return words


class Time:
    """A time expression: kind in in-year, in-month-year, in-month, on-date,
    on-day-month, before/after-year, before/after-month-year."""

    def __init__(self, prep, day=None, month=None, year=None):
        self.prep = prep      # in | on | before | after
        self.day = day
        self.month = month
        self.year = year

    def en(self):
        words = [self.prep]
        if self.day is not None:
            words.append(str(self.day))
        if self.month is not None:
            words.append(self.month)
        if self.year is not None:
            words.append(str(self.year))
        return words

    def fr(self):
        prep = {"in": "en", "on": "le", "before": "avant", "after": "après"}[self.prep]
        words = [prep]
        if self.day is not None:
            words.append("1er" if self.day == 1 else str(self.day))
        if self.month is not None:
            words.append(MONTH_BY_EN[self.month])
        if self.year is not None:
            words.append(str(self.year))
        return words


def join_words(words):
    """Join word list into a sentence: no space after an elided "l'"-style word,
    no space before punctuation."""
    out = ""
    for w in words:
        if not out:
            out = w
        elif w in (".", ","):
            out += w
        elif out.endswith("'"):
            out += w
        else:
            out += " " + w
    return out


def finish(en_words, fr_words):
    en_words = [cap(en_words[0])] + en_words[1:]
    fr_words = [cap(fr_words[0])] + fr_words[1:]
    return join_words(en_words), join_words(fr_words)


def build_passive(subj, verb, negated=False, future=False, agent=None, to=None,
                  time=None, fronted=False):
    """subj NP; verb entry of VERBS; agent/to NP or None; time Time or None."""
    pl = subj.plural
    pp_fr = verb[3][form_key(subj.gender, pl)]
    if future:
        en_aux = ["will", "not", "be"] if negated else ["will", "be"]
        fr_aux = ["seront" if pl else "sera"]
        if negated:
            fr_aux = ["ne"] + fr_aux + ["pas"]
    else:
        en_aux = ["were" if pl else "was"] + (["not"] if negated else [])
        fr_aux = ["n'" + ("ont" if pl else "a"), "pas", "été"] if negated else \
                 [("ont" if pl else "a"), "été"]
    en = subj.en() + en_aux + [verb[2]]
    fr = subj.fr() + fr_aux + [pp_fr]
    if to is not None:
        en += ["to"] + to.en()
        fr += to.fr("à")
    if agent is not None:
        en += ["by"] + agent.en()
        fr += ["par"] + agent.fr()
    return _add_time(en, fr, time, fronted)


def build_active(subj, verb, obj, negated=False, to=None, time=None, fronted=False):
    pl = subj.plural
    aux = "ont" if pl else "a"
    if negated:
        en = subj.en() + ["did", "not", verb[1]]
        fr = subj.fr() + ["n'" + aux, "pas", verb[3]["ms"]]
    else:
        en = subj.en() + [verb[0]]
        fr = subj.fr() + [aux, verb[3]["ms"]]
    en += obj.en()
    fr += obj.fr()
    if to is not None:
        en += ["to"] + to.en()
        fr += to.fr("à")
    return _add_time(en, fr, time, fronted)


def _add_time(en, fr, time, fronted):
    if time is None:
        return finish(en + ["."], fr + ["."])
    if fronted:
        return finish(time.en() + [","] + en + ["."], time.fr() + [","] + fr + ["."])
    return finish(en + time.en() + ["."], fr + time.fr() + ["."])


# --------------------------------------------------------------------------
# Random generation
# --------------------------------------------------------------------------

def _nouns(kinds):
    return [n for n in NOUNS if any(k in n[5] for k in kinds)]


DOC_NOUNS = _nouns("d")
INST_NOUNS = _nouns("i")
IT_NOUNS = _nouns("it")
ALL_NOUNS = list(NOUNS)


def random_np(rng, pool, dets=("the",), allow_pp=True, p_plural=0.25):
    noun = rng.choice(pool)
    plural = noun[1] is not None and rng.random() < p_plural
    det = rng.choice(dets)
    if det == "a" and plural:
        det = "the"
    r = rng.random()
    origin = klass = None
    if r < 0.30:
        pass
    elif r < 0.55:
        origin = rng.choice(ORIGIN_ADJS)[0]
    elif r < 0.75:
        klass = rng.choice(CLASS_ADJS)[0]
    else:
        origin = rng.choice(ORIGIN_ADJS)[0]
        klass = rng.choice(CLASS_ADJS)[0]
    title = (origin is not None or klass is not None) and rng.random() < 0.3
    pp = None
    if allow_pp and rng.random() < 0.4:
        if rng.random() < 0.15:
            pp = ("of-date", (rng.choice(MONTHS)[0], rng.choice(YEARS)))
        else:
            kind = rng.choice(("on", "on", "of", "of", "with", "for"))
            pp = (kind, random_np(rng, ALL_NOUNS, allow_pp=False))
    return NP(noun, plural, det, origin, klass, title, pp)


def random_time(rng):
    r = rng.random()
    year = rng.choice(YEARS)
    month = rng.choice(MONTHS)[0]
    day = rng.choice(DAYS)
    if r < 0.25:
        return Time("in", year=year)
    if r < 0.50:
        return Time("in", month=month, year=year)
    if r < 0.55:
        return Time("in", month=month)
    if r < 0.78:
        return Time("on", day=day, month=month, year=year)
    if r < 0.83:
        return Time("on", day=day, month=month)
    prep = rng.choice(("before", "after"))
    if rng.random() < 0.5:
        return Time(prep, year=year)
    return Time(prep, month=month, year=year)


def generate(rng):
    """One random (english, french) pair."""
    time = random_time(rng) if rng.random() < 0.8 else None
    fronted = time is not None and rng.random() < 0.2
    negated = rng.random() < 0.2
    if rng.random() < 0.6:
        verb = rng.choice(VERBS)
        pool = _nouns(verb[4])
        subj = random_np(rng, pool, dets=("the", "the", "the", "the", "this", "a"))
        future = rng.random() < 0.15
        to = agent = None
        r = rng.random()
        if verb[5] and r < 0.5:
            to = random_np(rng, INST_NOUNS, allow_pp=False)
        elif r < 0.3:
            agent = random_np(rng, INST_NOUNS, allow_pp=False)
        return build_passive(subj, verb, negated, future, agent, to, time, fronted)
    verb = rng.choice(VERBS)
    subj = random_np(rng, INST_NOUNS, dets=("the", "the", "the", "this", "a"), allow_pp=False)
    obj = random_np(rng, _nouns(verb[4]), dets=("the", "the", "the", "this"))
    to = None
    if verb[5] and rng.random() < 0.5:
        to = random_np(rng, INST_NOUNS, allow_pp=False)
    return build_active(subj, verb, obj, negated, to, time, fronted)


BAHDANAU_EN = "The agreement on the European Economic Area was signed in August 1992."
BAHDANAU_FR = "L'accord sur la zone économique européenne a été signé en août 1992."


def bahdanau_pair():
    """Builds the Bahdanau et al. example with the grammar's own rules."""
    area = NP(NOUN_BY_EN["area"], origin="European", klass="economic", title=True)
    subj = NP(NOUN_BY_EN["agreement"], pp=("on", area))
    pair = build_passive(subj, VERB_BY_EN["signed"],
                         time=Time("in", month="August", year=1992))
    assert pair == (BAHDANAU_EN, BAHDANAU_FR), pair
    return pair


def make_corpus(seed, n_train, n_heldout):
    """Returns (train_pairs, heldout_pairs). The held-out set holds the
    Bahdanau sentence first, then n_heldout - 1 random sentences; no held-out
    English sentence occurs in the training set."""
    bahdanau_pair()
    rng = random.Random(seed)
    held = [(BAHDANAU_EN, BAHDANAU_FR)]
    held_en = {BAHDANAU_EN}
    while len(held) < n_heldout:
        en, fr = generate(rng)
        if en not in held_en:
            held_en.add(en)
            held.append((en, fr))
    train = []
    seen = set(held_en)
    while len(train) < n_train:
        en, fr = generate(rng)
        if en not in seen:
            seen.add(en)
            train.append((en, fr))
    return train, held


if __name__ == "__main__":
    rng = random.Random(0)
    print(bahdanau_pair())
    for _ in range(20):
        en, fr = generate(rng)
        print(en)
        print("   ", fr)
