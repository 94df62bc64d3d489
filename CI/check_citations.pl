#!/usr/bin/perl
# check_citations.pl — every section citation in the repository resolves to a section of docs/.
#
# Usage: perl CI/check_citations.pl SOURCE_DIR        (run by CTest as docs.citations)
#
# A citation is "§LABEL" (docs/README.md, "Citing"). It belongs to the nearest earlier tag that is
# immediately followed by a "§", on its line or — for a document — on the lines before it in the
# same paragraph (a blank line, a bare " *" comment line or the end of a C comment ends one):
#   - a document of docs/: formulation-convex, formulation-tamsi-hydro, cases, architecture,
#     guide, testing or speed (optionally docs/ and .md): LABEL must be a heading of that
#     document;
#   - a paper (ICF, TAMSI, PFC, SAP, P1, P2, "paper") with a Roman-numeral section (§XI-A), or a
#     book (Numerical Recipes, Hairer & Wanner, Pfeiffer & Glocker, George & Liu, the style
#     guide): not checked. A Roman-numeral section with no tag is a paper's too (docs/ numbers
#     its sections with Arabic numerals and the letters A-I).
# Inside docs/X.md a bare "§LABEL" cites X itself. Anything else — a "§" with no tag before it,
# an Arabic section after a paper tag, a label missing from its document, a path into ../shared —
# is reported with file:line, and the exit status is 1. The fuzzing corpora (fuzz/corpus/) are
# mutated inputs, not documentation, and are skipped, as are this script and its test (whose
# examples are wrong on purpose).
#
# Links: in every tracked Markdown file, outside code blocks, a relative link [text](PATH) or
# [text](PATH#ANCHOR) must name a file or directory that exists (relative to the file), and an
# ANCHOR a heading of the Markdown file it points into (GitHub's anchor of the heading: lower
# case, punctuation dropped, spaces as hyphens); [text](#ANCHOR) a heading of the file itself.
use strict;
use warnings;

my $root = shift @ARGV or die "usage: check_citations.pl SOURCE_DIR\n";
chdir $root or die "check_citations: cannot enter $root: $!\n";

my @docs = qw(formulation-convex formulation-tamsi-hydro cases architecture guide testing speed);
my %labels;    # doc -> { label -> 1 }
for my $d (@docs) {
    open my $fh, '<', "docs/$d.md" or die "check_citations: docs/$d.md: $!\n";
    while (<$fh>) {
        next unless /^#{2,4}\s+(\S+)/;
        (my $l = $1) =~ s/\.$//;
        $labels{$d}{$l} = 1;
    }
    close $fh;
    die "check_citations: docs/$d.md has no numbered headings\n" unless %{ $labels{$d} };
}

# The tracked files; outside a git checkout (a source archive, the self-test) every file below
# the root except build trees and version-control data.
my @files;
if (-e '.git') {
    @files = split /\0/, `git ls-files -z`;
    die "check_citations: git ls-files failed in $root\n" if $? != 0;
} else {
    require File::Find;
    no warnings 'once';
    File::Find::find({ no_chdir => 1, wanted => sub {
        if (-d $_ && m{^\./(?:build[^/]*|\.git)$}) { $File::Find::prune = 1; return; }
        push @files, substr($_, 2) if -f $_;
    } }, '.');
    @files = sort @files;
}
@files = grep { !m{^fuzz/corpus/} && $_ ne "CI/check_citations.pl" && $_ ne "CI/docs_test.sh" && -f $_ && -T $_ } @files;

my $label_re = qr/(?:[IVX]+(?:-[A-Z])?(?:\.[0-9]+)?(?![A-Za-z0-9])|[0-9]+(?:\.[0-9]+)?|[A-I](?:\.[0-9]+|-[A-Z][0-9]+)?)/;
my $doc_re = qr/(?:docs\/)?(formulation-convex|formulation-tamsi-hydro|cases|architecture|guide|testing|speed)(?:\.md)?`?\s*(?=§)/;
my $paper_re = qr/(ICF|TAMSI|PFC|SAP|P1|P2|paper)[,`]?\s*(?=§)/;
my $book_re = qr/(Recipes[^§]{0,20}|Hairer[^§]{0,80}|Glocker|Liu,[^§]{0,40}|STYLE(?:\.md)?)\s*(?=§)/;

my ($n_cit, $n_err) = (0, 0);
sub report { my ($f, $n, $msg) = @_; print "$f:$n: $msg\n"; $n_err++; }

for my $f (@files) {
    open my $fh, '<', $f or die "check_citations: $f: $!\n";
    my $self = ($f =~ m{^docs/([\w-]+)\.md$}) ? $1 : undef;
    $self = undef if defined $self && !exists $labels{$self};
    my $n = 0;
    my $carry;    # the tag in force from earlier lines of the paragraph
    while (my $line = <$fh>) {
        $n++;
        if ($line =~ m{^\s*(?:\*|//|#)?\s*$}) { $carry = undef; next; }
        report($f, $n, "points into ../shared (the theory lives in docs/)")
            if $line =~ m{shared/spec|\.\./shared/};
        my $ctx = $carry // (defined $self ? "doc:$self" : undef);
        my $last_doc = $ctx;
        while ($line =~ /\G.*?(?:$doc_re|$paper_re|$book_re|§\s?($label_re)?)/gc) {
            if (defined $1)    { $ctx = $last_doc = "doc:$1"; next; }
            if (defined $2)    { $ctx = "paper:$2"; next; }
            if (defined $3)    { $ctx = "book";     next; }
            my $label = $4;
            $n_cit++;
            if (!defined $label) { report($f, $n, "\"§\" without a section label"); next; }
            my $roman = $label =~ /^[IVX]+(?:-[A-Z])?(?:\.[0-9]+)?$/;
            next if !defined $ctx && $roman; # a paper's section (docs use Arabic numbers and A-I)
            if (!defined $ctx) {
                report($f, $n, "§$label names no document (write e.g. formulation-convex §$label)");
                next;
            }
            next if $ctx eq 'book';
            if ($ctx =~ /^paper:(.*)/) {
                report($f, $n, "§$label after the paper tag $1 is not a Roman section; "
                       . "a docs section must name its document")
                    unless $roman;
                next;
            }
            (my $doc = $ctx) =~ s/^doc://;
            report($f, $n, "§$label is not a section of docs/$doc.md")
                unless $labels{$doc}{$label};
        }
        $carry = $last_doc;    # a paper's or book's tag ends with its line
        $carry = undef if $line =~ m{\*/};
    }
    close $fh;
}
# The links of the Markdown files.
sub anchors_of {
    my ($path) = @_;
    my %a;
    open my $fh, '<', $path or return undef;
    my $fence = 0;
    while (<$fh>) {
        $fence = !$fence if /^\s*```/;
        next if $fence || !/^#{1,6}\s+(.*?)\s*$/;
        (my $s = lc $1) =~ s/[^\w\- ]//g;
        $s =~ s/ /-/g;
        $a{$s} = 1;
    }
    close $fh;
    return \%a;
}
my %anchor_cache;
my $n_links = 0;
for my $f (grep { /\.md$/ } @files) {
    open my $fh, '<', $f or die "check_citations: $f: $!\n";
    (my $dir = $f) =~ s{[^/]*$}{};
    my ($n, $fence) = (0, 0);
    while (my $line = <$fh>) {
        $n++;
        if ($line =~ /^\s*```/) { $fence = !$fence; next; }
        next if $fence;
        (my $text = $line) =~ s/`[^`]*`//g;    # code spans are not links
        while ($text =~ /\]\(([^)\s]+)\)/g) {
            my $target = $1;
            $target =~ s/^<(.*)>$/$1/;                # the <...> form of a destination
            next if $target =~ m{^(?:[a-z]+:|//)};    # http:, mailto:, ...
            $n_links++;
            my ($path, $anchor) = split /#/, $target, 2;
            my $file = $path eq '' ? $f : "$dir$path";
            1 while $file =~ s{(^|/)(?!\.\./)[^/]+/\.\./}{$1};
            if ($file =~ m{^\.\./} || !-e $file) {
                report($f, $n, "link to $target: no file $file");
                next;
            }
            next unless defined $anchor;
            if ($file !~ /\.md$/) { report($f, $n, "link to $target: an anchor into a file that is not Markdown"); next; }
            $anchor_cache{$file} //= anchors_of($file);
            report($f, $n, "link to $target: no heading of $file has the anchor #$anchor")
                unless $anchor_cache{$file}{$anchor};
        }
    }
    close $fh;
}

printf "check_citations: %d citations and %d links in %d files, %d problems\n", $n_cit, $n_links,
    scalar(@files), $n_err;
exit($n_err ? 1 : 0);
