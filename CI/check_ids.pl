#!/usr/bin/perl
# check_ids.pl — every case, study and gate id that the documents name exists.
#
# Usage: perl CI/check_ids.pl SOURCE_DIR LIST_FILE     (run by CTest as docs.ids, through
#        CI/ids_test.sh, with LIST_FILE the output of `ccb list`)
#
# What exists: the cases and their studies of `ccb list`, the gate ids of reference/*.json.
# What is read: docs/*.md, README.md and the texts of the gate files (reference/*.json). A
# reference is
#   - a gate id: a family prefix (CONV, SPH, ROD, BOX, CLU, COIN, GRIP, GRASP), "-" and a name;
#     it names a gate, or a family of gates when some gate id continues it with a letter, "." or
#     "-" (SPH-1 names SPH-1a ... SPH-1f; CLU-4 names CLU-4a and CLU-4.lagged; not SPH-10);
#   - `ccb study CASE STUDY`, `ccb run|gate|info|bench CASE` (CASE and STUDY may be alternatives
#     joined by "|"; upper-case words stand for any name and are not checked);
#   - a markdown table row whose first or second cell is a case name: every cell that is a list
#     of back-quoted names only (`fig3`, `fig4`) names studies of that case.
# Each unknown one is reported with file:line, and the exit status is 1.
use strict;
use warnings;

my ($root, $list) = @ARGV;
die "usage: check_ids.pl SOURCE_DIR LIST_FILE\n" unless defined $list;

my (%studies, %solvers, $case);
open my $lf, '<', $list or die "check_ids: $list: $!\n";
my $in_cases = 1;
while (<$lf>) {
    $in_cases = 0 if /^\s*$/;    # the variants follow the cases
    if (!$in_cases) {           # then the solvers and ODE methods (`ccb info SOLVER`)
        if (/^(?:solvers|ODE methods) \([^)]*\):\s*(.*)$/) {
            $solvers{$_} = 1 for split /\s+/, $1;
        }
        next;
    }
    if (/^(\w+)\s/) {
        $case = $1;
        $studies{$case} = {};
    } elsif (/^\s+study\s+(\S+)/ && defined $case) {
        $studies{$case}{$1} = 1;
    }
}
close $lf;
die "check_ids: no case in $list\n" unless %studies;

chdir $root or die "check_ids: cannot enter $root: $!\n";
my @gatefiles = sort glob "reference/*.json";
my %gates;
for my $f (@gatefiles) {
    open my $fh, '<', $f or die "check_ids: $f: $!\n";
    local $/;
    my $t = <$fh>;
    $gates{$1} = 1 while $t =~ /"id"\s*:\s*"([^"]+)"/g;
}
die "check_ids: no gate in reference/\n" unless %gates;

my $families = 'CONV|SPH|ROD|BOX|CLU|COIN|GRIP|GRASP';
sub gate_known {
    my ($r) = @_;
    return 1 if $gates{$r};
    for my $g (keys %gates) {
        return 1 if index($g, $r) == 0 && substr($g, length $r, 1) =~ /[a-z.\-]/;
    }
    return 0;
}

my ($nref, @problems) = (0);
sub problem { push @problems, "$_[0]:$_[1]: $_[2]" }

sub check_study {
    my ($file, $ln, $cs, $st) = @_;
    $nref++;
    if (!$studies{$cs}) {
        problem($file, $ln, "'$cs' is not a case of ccb list");
    } elsif (!$studies{$cs}{$st}) {
        problem($file, $ln, "'$st' is not a study of $cs (ccb list)");
    }
}

my @files = (sort(glob "docs/*.md"), "README.md", @gatefiles);
for my $file (@files) {
    open my $fh, '<', $file or die "check_ids: $file: $!\n";
    my $ln = 0;
    while (my $line = <$fh>) {
        $ln++;
        # gate ids (a reference ends at a character that cannot continue an id)
        while ($line =~ /\b((?:$families)-[A-Za-z0-9][A-Za-z0-9.\-]*)/g) {
            (my $r = $1) =~ s/[.\-]+$//;
            $nref++;
            problem($file, $ln, "gate '$r' is not in reference/*.json") unless gate_known($r);
        }
        # ccb commands naming a case (and a study)
        while ($line =~ /(?:`|build\/|^)ccb study ([a-z][a-z|]*) ([a-z0-9][a-z0-9|\-]*)/g) {
            my ($cs, $st) = ($1, $2);
            for my $c (split /\|/, $cs) {
                check_study($file, $ln, $c, $_) for split /\|/, $st;
            }
        }
        while ($line =~ /(?:`|build\/|^)ccb (run|gate|info|bench) ([a-z][a-z|]*)\b/g) {
            my $cmd = $1;
            for my $c (split /\|/, $2) {
                $nref++;
                next if $cmd eq 'info' && $solvers{$c}; # `ccb info SOLVER`
                problem($file, $ln, "'$c' is not a case of ccb list") unless $studies{$c};
            }
        }
        # a table row of a case: its cells of back-quoted names are its studies
        next unless $line =~ /^\|/;
        my @cells = map { s/^\s+|\s+$//gr } split /(?<!\\)\|/, $line;
        shift @cells;    # before the first '|'
        my $cs;
        for my $c (@cells[0 .. 1]) {
            next unless defined $c;
            if ($c =~ /^`?([a-z]+)`?(?:\s+—|$)/ && $studies{$1}) {
                $cs = $1;
                last;
            }
        }
        next unless defined $cs;
        for my $c (@cells[1 .. $#cells]) {
            next unless $c =~ /^`[a-z0-9\-]+`(?:,\s*`[a-z0-9\-]+`)*$/;
            check_study($file, $ln, $cs, $_) for $c =~ /`([a-z0-9\-]+)`/g;
        }
    }
    close $fh;
}

print "$_\n" for @problems;
printf "%d references to cases, studies and gates in %d files: %d problem%s\n", $nref,
    scalar @files, scalar @problems, @problems == 1 ? "" : "s";
exit(@problems ? 1 : 0);
