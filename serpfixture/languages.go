package serpfixture

import (
	"fmt"
	"strings"
)

// language is one of the fixture's languages besides English and German:
// the results page's real interface strings in it, and the stand-in
// overview of any query.
type language struct {
	words   words
	generic generic
}

// generic is a stand-in overview in one language: a paragraph naming the
// query (Intro, with %s), a heading, a list of three items (lead, text)
// and a closing paragraph.
type generic struct {
	Intro, Heading string
	Items          [3][2]string
	Outro          string
}

// overview builds the stand-in overview of query q.
func (g generic) overview(q, lang string) overview {
	items := make([]item, 0, len(g.Items))
	for i, it := range g.Items {
		items = append(items, item{Lead: it[0], Text: it[1], Cites: [][]int{nil, {1, 2}, {3, 4}}[i]})
	}
	return overview{
		Blocks: []blockSpec{
			{Kind: "p", Cites: []int{0, 1}, Text: fmt.Sprintf(g.Intro, q)},
			{Kind: "h", Text: g.Heading},
			{Kind: "ul", Items: items},
			{Kind: "p", Cites: []int{0}, Text: g.Outro},
		},
		Links: searchLinks(q, lang),
	}
}

// languageOf returns the fixture language of hl ("pt", "pt-BR", "ja"...);
// ok is false for English, German and languages the fixture lacks.
func languageOf(hl string) (language, bool) {
	base, _, _ := strings.Cut(strings.ToLower(strings.ReplaceAll(hl, "_", "-")), "-")
	l, ok := languages[base]
	return l, ok
}

// languages holds the interface strings of the real results page, as the
// search engine shows them, in each language the fixture serves besides
// English (the default) and German.
var languages = map[string]language{
	"pt": {
		words: words{Lang: "pt", Heading: "Visão geral criada por IA", ShowMore: "Mostrar mais",
			ShowMoreLabel: "Mostrar mais Visão geral criada por IA", ShowAll: "Mostrar tudo",
			ShowAllLabel: "Mostrar todos os links relacionados", Close: "Fechar", ChipLabel: "Ver links relacionados",
			OpensNewTab: ". Abre em uma nova guia.", SearchLabel: "Pesquisar", TitleSuffix: " - Pesquisa Google",
			Tabs:  []string{"Todas", "Imagens", "Vídeos", "Notícias", "Shopping", "Maps"},
			About: "Aproximadamente 1.240.000 resultados (0,41 segundos)", Disclaimer: "As respostas da IA podem incluir erros.",
			AIMode: "Aprofunde a pesquisa no Modo IA", Feedback: "Enviar feedback"},
		generic: generic{Intro: "“%s” é respondido pelo servidor de pesquisa de teste do kisa com esta visão geral substituta.",
			Heading: "O que esta página oferece:",
			Items: [3][2]string{{"Streaming", "A visão geral aparece após um breve atraso."},
				{"Citações", "Os chips no texto listam os seus links em comentários JSON ocultos."},
				{"Fontes", "O painel lateral mostra três sites primeiro e os outros a pedido."}},
			Outro: "Pesquise outra coisa para ver outra resposta."},
	},
	"fr": {
		words: words{Lang: "fr", Heading: "Aperçu IA", ShowMore: "Afficher plus",
			ShowMoreLabel: "Afficher plus Aperçu IA", ShowAll: "Tout afficher",
			ShowAllLabel: "Afficher tous les liens associés", Close: "Fermer", ChipLabel: "Afficher les liens associés",
			OpensNewTab: ". S'ouvre dans un nouvel onglet.", SearchLabel: "Rechercher", TitleSuffix: " - Recherche Google",
			Tabs:  []string{"Tous", "Images", "Vidéos", "Actualités", "Shopping", "Maps"},
			About: "Environ 1 240 000 résultats (0,41 secondes)", Disclaimer: "Les réponses de l'IA peuvent contenir des erreurs.",
			AIMode: "Approfondir en mode IA", Feedback: "Envoyer des commentaires"},
		generic: generic{Intro: "« %s » reçoit du serveur de recherche de test de kisa cet aperçu de remplacement.",
			Heading: "Ce que propose cette page :",
			Items: [3][2]string{{"Diffusion", "L'aperçu apparaît après un court délai."},
				{"Citations", "Les puces du texte listent leurs liens dans des commentaires JSON cachés."},
				{"Sources", "Le panneau latéral montre d'abord trois sites, puis les autres sur demande."}},
			Outro: "Cherchez autre chose pour voir une autre réponse."},
	},
	"es": {
		words: words{Lang: "es", Heading: "Vista creada con IA", ShowMore: "Mostrar más",
			ShowMoreLabel: "Mostrar más Vista creada con IA", ShowAll: "Mostrar todo",
			ShowAllLabel: "Mostrar todos los enlaces relacionados", Close: "Cerrar", ChipLabel: "Ver enlaces relacionados",
			OpensNewTab: ". Se abre en una pestaña nueva.", SearchLabel: "Buscar", TitleSuffix: " - Buscar con Google",
			Tabs:  []string{"Todo", "Imágenes", "Videos", "Noticias", "Shopping", "Maps"},
			About: "Aproximadamente 1.240.000 resultados (0,41 segundos)", Disclaimer: "Las respuestas de la IA pueden contener errores.",
			AIMode: "Profundiza en el Modo IA", Feedback: "Enviar comentarios"},
		generic: generic{Intro: "«%s» recibe del servidor de búsqueda de prueba de kisa esta vista de sustitución.",
			Heading: "Qué ofrece esta página:",
			Items: [3][2]string{{"Transmisión", "La vista aparece tras una breve espera."},
				{"Citas", "Los chips del texto enumeran sus enlaces en comentarios JSON ocultos."},
				{"Fuentes", "El panel lateral muestra primero tres sitios y los demás a petición."}},
			Outro: "Busca otra cosa para ver otra respuesta."},
	},
	"it": {
		words: words{Lang: "it", Heading: "Panoramica AI", ShowMore: "Mostra altro",
			ShowMoreLabel: "Mostra altro Panoramica AI", ShowAll: "Mostra tutto",
			ShowAllLabel: "Mostra tutti i link correlati", Close: "Chiudi", ChipLabel: "Visualizza link correlati",
			OpensNewTab: ". Si apre in una nuova scheda.", SearchLabel: "Cerca", TitleSuffix: " - Cerca con Google",
			Tabs:  []string{"Tutti", "Immagini", "Video", "Notizie", "Shopping", "Maps"},
			About: "Circa 1.240.000 risultati (0,41 secondi)", Disclaimer: "Le risposte dell'AI potrebbero contenere errori.",
			AIMode: "Approfondisci in modalità AI", Feedback: "Invia feedback"},
		generic: generic{Intro: "«%s» riceve dal server di ricerca di prova di kisa questa panoramica sostitutiva.",
			Heading: "Che cosa offre questa pagina:",
			Items: [3][2]string{{"Streaming", "La panoramica compare dopo una breve attesa."},
				{"Citazioni", "I chip nel testo elencano i loro link in commenti JSON nascosti."},
				{"Fonti", "Il pannello laterale mostra prima tre siti e gli altri su richiesta."}},
			Outro: "Cerca altro per vedere un'altra risposta."},
	},
	"nl": {
		words: words{Lang: "nl", Heading: "AI-overzicht", ShowMore: "Meer weergeven",
			ShowMoreLabel: "Meer weergeven AI-overzicht", ShowAll: "Alles weergeven",
			ShowAllLabel: "Alle gerelateerde links weergeven", Close: "Sluiten", ChipLabel: "Gerelateerde links bekijken",
			OpensNewTab: ". Wordt geopend op een nieuw tabblad.", SearchLabel: "Zoeken", TitleSuffix: " - Google Zoeken",
			Tabs:  []string{"Alle", "Afbeeldingen", "Video's", "Nieuws", "Shopping", "Maps"},
			About: "Ongeveer 1.240.000 resultaten (0,41 seconden)", Disclaimer: "AI-reacties kunnen fouten bevatten.",
			AIMode: "Verder zoeken in AI-modus", Feedback: "Feedback geven"},
		generic: generic{Intro: "‘%s’ krijgt van de testzoekserver van kisa dit vervangende overzicht.",
			Heading: "Wat deze pagina biedt:",
			Items: [3][2]string{{"Streaming", "Het overzicht verschijnt na een korte vertraging."},
				{"Bronvermeldingen", "Chips in de tekst noemen hun links in verborgen JSON-commentaar."},
				{"Bronnen", "Het zijpaneel toont eerst drie websites en de rest op verzoek."}},
			Outro: "Zoek iets anders voor een ander antwoord."},
	},
	"pl": {
		words: words{Lang: "pl", Heading: "Przegląd od AI", ShowMore: "Pokaż więcej",
			ShowMoreLabel: "Pokaż więcej Przegląd od AI", ShowAll: "Pokaż wszystko",
			ShowAllLabel: "Pokaż wszystkie powiązane linki", Close: "Zamknij", ChipLabel: "Wyświetl powiązane linki",
			OpensNewTab: ". Otwiera się w nowej karcie.", SearchLabel: "Szukaj", TitleSuffix: " - Szukaj w Google",
			Tabs:  []string{"Wszystko", "Grafika", "Wideo", "Wiadomości", "Zakupy", "Mapy"},
			About: "Około 1 240 000 wyników (0,41 s)", Disclaimer: "Odpowiedzi AI mogą zawierać błędy.",
			AIMode: "Dowiedz się więcej w trybie AI", Feedback: "Prześlij opinię"},
		generic: generic{Intro: "Na „%s” testowy serwer wyszukiwania kisa odpowiada tym zastępczym przeglądem.",
			Heading: "Co oferuje ta strona:",
			Items: [3][2]string{{"Strumieniowanie", "Przegląd pojawia się po krótkim opóźnieniu."},
				{"Cytaty", "Chipy w tekście wymieniają swoje linki w ukrytych komentarzach JSON."},
				{"Źródła", "Panel boczny pokazuje najpierw trzy witryny, a pozostałe na żądanie."}},
			Outro: "Wyszukaj coś innego, aby zobaczyć inną odpowiedź."},
	},
	"ja": {
		words: words{Lang: "ja", Heading: "AI による概要", ShowMore: "もっと見る",
			ShowMoreLabel: "もっと見る AI による概要", ShowAll: "すべて表示",
			ShowAllLabel: "関連リンクをすべて表示", Close: "閉じる", ChipLabel: "関連リンクを表示",
			OpensNewTab: "。新しいタブで開きます。", SearchLabel: "検索", TitleSuffix: " - Google 検索",
			Tabs:  []string{"すべて", "画像", "動画", "ニュース", "ショッピング", "地図"},
			About: "約 1,240,000 件 （0.41 秒）", Disclaimer: "AI の回答には間違いが含まれている場合があります。",
			AIMode: "AI モードで詳しく調べる", Feedback: "フィードバックを送信"},
		generic: generic{Intro: "「%s」には、kisa のテスト用検索サーバーがこの代替の概要で答えます。",
			Heading: "このページの内容:",
			Items: [3][2]string{{"ストリーミング", "概要は少し遅れて表示されます。"},
				{"引用", "本文中のチップは、リンクを非表示の JSON コメントに記載します。"},
				{"ソース", "サイドパネルは最初に 3 つのサイトを表示し、残りは要求に応じて表示します。"}},
			Outro: "別の語句を検索すると、別の回答が表示されます。"},
	},
	"zh": {
		words: words{Lang: "zh", Heading: "AI 概览", ShowMore: "显示更多",
			ShowMoreLabel: "显示更多 AI 概览", ShowAll: "全部显示",
			ShowAllLabel: "显示所有相关链接", Close: "关闭", ChipLabel: "查看相关链接",
			OpensNewTab: "。在新标签页中打开。", SearchLabel: "搜索", TitleSuffix: " - Google 搜索",
			Tabs:  []string{"全部", "图片", "视频", "新闻", "购物", "地图"},
			About: "找到约 1,240,000 条结果 （用时 0.41 秒）", Disclaimer: "AI 的回答未必正确无误，请注意核查",
			AIMode: "在 AI 模式下深入探索", Feedback: "提供反馈"},
		generic: generic{Intro: "对于“%s”，kisa 的测试搜索服务器用这份替代概览作答。",
			Heading: "本页提供的内容：",
			Items: [3][2]string{{"流式传输", "概览会在短暂延迟后出现。"},
				{"引用", "正文中的标签把链接列在隐藏的 JSON 注释中。"},
				{"来源", "侧边栏先显示三个网站，其余的按需显示。"}},
			Outro: "搜索其他内容即可看到其他回答。"},
	},
	"ar": {
		words: words{Lang: "ar", Heading: "نظرة عامة بالذكاء الاصطناعي", ShowMore: "عرض المزيد",
			ShowMoreLabel: "عرض المزيد نظرة عامة بالذكاء الاصطناعي", ShowAll: "عرض الكل",
			ShowAllLabel: "عرض كل الروابط ذات الصلة", Close: "إغلاق", ChipLabel: "عرض الروابط ذات الصلة",
			OpensNewTab: ". يفتح في علامة تبويب جديدة.", SearchLabel: "بحث", TitleSuffix: " - بحث Google",
			Tabs:  []string{"الكل", "صور", "فيديو", "أخبار", "تسوّق", "خرائط"},
			About: "حوالي 1,240,000 من النتائج (0.41 ثانية)", Disclaimer: "قد تتضمّن ردود الذكاء الاصطناعي أخطاءً.",
			AIMode: "التعمّق أكثر في وضع الذكاء الاصطناعي", Feedback: "إرسال ملاحظات"},
		generic: generic{Intro: "يجيب خادم البحث التجريبي في kisa عن «%s» بهذه النظرة العامة البديلة.",
			Heading: "ما تقدّمه هذه الصفحة:",
			Items: [3][2]string{{"البث", "تظهر النظرة العامة بعد تأخير قصير."},
				{"الاستشهادات", "تسرد الشارات في النص روابطها في تعليقات JSON مخفية."},
				{"المصادر", "تعرض اللوحة الجانبية ثلاثة مواقع أولاً والباقي عند الطلب."}},
			Outro: "ابحث عن شيء آخر لترى إجابة أخرى."},
	},
	"he": {
		words: words{Lang: "he", Heading: "סקירה כללית מבוססת AI", ShowMore: "הצגת עוד",
			ShowMoreLabel: "הצגת עוד סקירה כללית מבוססת AI", ShowAll: "הצגת הכול",
			ShowAllLabel: "הצגת כל הקישורים הקשורים", Close: "סגירה", ChipLabel: "הצגת קישורים קשורים",
			OpensNewTab: ". נפתח בכרטיסייה חדשה.", SearchLabel: "חיפוש", TitleSuffix: " - חיפוש ב-Google",
			Tabs:  []string{"הכול", "תמונות", "סרטונים", "חדשות", "שופינג", "מפות"},
			About: "כ-1,240,000 תוצאות (0.41 שניות)", Disclaimer: "תשובות של AI עשויות לכלול טעויות.",
			AIMode: "להעמיק במצב AI", Feedback: "שליחת משוב"},
		generic: generic{Intro: "על „%s” עונה שרת החיפוש לבדיקות של kisa בסקירה חלופית זו.",
			Heading: "מה הדף הזה מציע:",
			Items: [3][2]string{{"הזרמה", "הסקירה מופיעה אחרי השהיה קצרה."},
				{"ציטוטים", "השבבים בטקסט מפרטים את הקישורים שלהם בהערות JSON מוסתרות."},
				{"מקורות", "החלונית הצדדית מציגה קודם שלושה אתרים ואת השאר לפי בקשה."}},
			Outro: "חפשו משהו אחר כדי לראות תשובה אחרת."},
	},
}

// InterfaceStrings returns the interface strings of the results page in
// language hl (heading, show more, show all, disclaimer, AI Mode,
// feedback, chip label...): none of them may appear in an overview's text.
//
// Only tests call it (worker/serp's): it is kept on purpose although
// deadcode ./cmd/... lists it.
func InterfaceStrings(hl string) []string {
	w := wordsFor(hl)
	return []string{w.Heading, w.ShowMore, w.ShowMoreLabel, w.ShowAll, w.ShowAllLabel, w.Close,
		w.ChipLabel, strings.Trim(w.OpensNewTab, ". 。"), w.Disclaimer, w.AIMode, w.Feedback}
}
